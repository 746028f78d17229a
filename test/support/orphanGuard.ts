/**
 * Loaded first (`--import`) into every process a test starts: when the test process that started it is gone (its
 * worker killed by a timeout, the run killed midway, even with SIGKILL), the child sees its parent change and ends
 * itself with SIGTERM (a server shuts down as it would under a process manager). Without this, a server whose test
 * died kept running for the rest of the run and after it.
 */
const parent = process.ppid;
const CHECK_EVERY_MS = 500;
/** A shutdown that does not finish (it was caught mid-start) is cut short. */
const SHUTDOWN_GRACE_MS = 10_000;

const watch = setInterval(() => {
  if (process.ppid === parent) return;
  clearInterval(watch);
  process.kill(process.pid, "SIGTERM");
  setTimeout(() => process.kill(process.pid, "SIGKILL"), SHUTDOWN_GRACE_MS).unref();
}, CHECK_EVERY_MS);
watch.unref();
