// Preloaded with --import: prints the process's peak resident set (worker threads included) at exit.
process.on('exit', () => {
  process.stderr.write(`maxrss_kib=${process.resourceUsage().maxRSS}\n`);
});
