/**
 * A loopback port free at the moment of asking: bound to port 0 and released at once, for a server
 * (the application, PostgreSQL, a benchmark's process) that binds it a moment later, or for an
 * address nothing listens on. Shared by scripts/ and test/.
 */
import net from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
