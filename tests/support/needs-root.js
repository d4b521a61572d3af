// Tests that need root: one mounts a small filesystem, one runs a process as another user. Without
// root they are skipped, and the run ends with one line naming them (server-only-reporter.js), as
// for a missing program. JavaScript: read by the reporter, which Jest loads without its transform.

/** Whether this run may do what only root may. */
function runningAsRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** The closing line for the tests skipped without root in `results` (Jest's), or null. */
function withoutRootLine(results, root = runningAsRoot()) {
  const skipped = results.testResults.flatMap((file) =>
    file.testResults
      .filter((test) => test.status === 'pending' && /\(needs root\)$/.test(test.title))
      .map(() => file.testFilePath.replace(/^.*\/tests\//, 'tests/')),
  );
  if (root || skipped.length === 0) return null;
  return (
    `Not run without root: ${skipped.length} test${skipped.length === 1 ? '' : 's'} ` +
    `(${[...new Set(skipped)].join(', ')}). Run npm test as root to include them.`
  );
}

module.exports = { runningAsRoot, withoutRootLine };
