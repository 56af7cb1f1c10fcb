/**
 * Why a server could not listen, in the operator's words, and what to do:
 * `cannot listen on 127.0.0.1:18765: port in use (another program listens
 * there); choose another with --port N, or --port 0 for any free one`. The
 * replay server, the console (`serve`, `run --console`) and the demo web say
 * it alike; each names the option that sets its port.
 */

/** The reason for a listen error's code, and whether another port would help. */
function reason(err: unknown): { text: string; otherPort: boolean } {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'EADDRINUSE':
      return { text: 'port in use (another program listens there)', otherPort: true };
    case 'EACCES':
      return { text: 'permission denied (ports below 1024 need privileges)', otherPort: true };
    case 'EADDRNOTAVAIL':
      return { text: 'no such address on this machine', otherPort: false };
    default:
      return { text: err instanceof Error ? err.message : String(err), otherPort: false };
  }
}

/**
 * The message for a failed listen on `address` (host:port, or several):
 * the reason, and for a port problem the option that chooses another
 * (`portFlag`, e.g. `--port` or `--console-port`).
 */
export function listenFailure(address: string, err: unknown, portFlag: string): string {
  const why = reason(err);
  const hint = why.otherPort ? `; choose another with ${portFlag} N, or ${portFlag} 0 for any free one` : '';
  return `cannot listen on ${address}: ${why.text}${hint}`;
}
