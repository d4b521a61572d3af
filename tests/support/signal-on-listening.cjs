// Preloaded into a service process (NODE_OPTIONS=--require): sends the process SIGTERM the moment
// it writes that it listens, as a supervisor reading that line at once would, then holds the main
// thread for a moment so that the signal lands before anything else the start does.
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  const written = write(chunk, ...rest);
  if (String(chunk).includes('listening on')) {
    process.kill(process.pid, 'SIGTERM');
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  }
  return written;
};
