// The yardstick: the least an Express 5 JSON service does (one JSON GET, one JSON POST echo), run in
// its own process as the service is, so the benchmark can print every figure as a ratio to it.
import express from 'express';

const app = express();
app.disable('x-powered-by');
app.use(express.json());
app.get('/bare', (_req, res) => {
  res.json({ status: 'ok', time: new Date().toISOString() });
});
app.post('/bare', (req, res) => {
  res.status(201).json(req.body);
});
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  console.log(`bare express listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
