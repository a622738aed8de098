/**
 * A DNS server on loopback (UDP) whose answers a test sets and changes at will: the server under
 * test resolves webhook target names through it (DNS_RESOLVER=127.0.0.1:<port>), so tests can make
 * a name resolve to any address, to nothing (NXDOMAIN), or to one address and then another (DNS
 * rebinding), without touching any real resolver; and TXT records, for domain verification.
 */
import dgram from 'node:dgram';
import { once } from 'node:events';
import dnsPacket from 'dns-packet';
import type { Test } from 'tap';

export interface DnsServer {
  /** `127.0.0.1:<port>`, the value for DNS_RESOLVER. */
  address: string;
  port: number;
  /**
   * Sets what `name` resolves to: IPv4 and IPv6 literals (A and AAAA records), or a function called
   * per query (so a test can answer differently each time). An unknown name gets NXDOMAIN.
   */
  set(name: string, addresses: string[] | ((queryIndex: number) => string[])): void;
  /** Sets the TXT records of `name` (domain verification); a name with neither kind of record gets NXDOMAIN. */
  setTxt(name: string, values: string[]): void;
  /** How many A/AAAA queries `name` has had. */
  queries(name: string): number;
  close(): Promise<void>;
}

export async function startDnsServer(t: Test): Promise<DnsServer> {
  const answers = new Map<string, (queryIndex: number) => string[]>();
  const texts = new Map<string, string[]>();
  const counts = new Map<string, number>();
  const socket = dgram.createSocket('udp4');
  socket.on('message', (message, remote) => {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (!question) return;
    const name = question.name.toLowerCase();
    if (question.type === 'TXT') {
      const values = texts.get(name);
      const reply = dnsPacket.encode({
        id: query.id,
        type: 'response',
        flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (values || answers.has(name) ? 0 : 3),
        questions: [question],
        answers: (values ?? []).map((data) => ({ type: 'TXT' as const, name: question.name, ttl: 0, class: 'IN' as const, data: [data] })),
      });
      socket.send(reply, remote.port, remote.address);
      return;
    }
    const answer = answers.get(name);
    // Both the A and the AAAA query of one resolution count once (the A query).
    if (question.type === 'A') counts.set(name, (counts.get(name) ?? 0) + 1);
    const addresses = answer ? answer((counts.get(name) ?? 1) - 1) : [];
    const wanted = addresses.filter((a) => (question.type === 'A' ? !a.includes(':') : question.type === 'AAAA' && a.includes(':')));
    const response = dnsPacket.encode({
      id: query.id,
      type: 'response',
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (answer ? 0 : 3), // rcode 3: NXDOMAIN
      questions: [question],
      answers: wanted.map((data) => ({ type: question.type as 'A' | 'AAAA', name: question.name, ttl: 0, class: 'IN' as const, data })),
    });
    socket.send(response, remote.port, remote.address);
  });
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  const port = socket.address().port;
  const server: DnsServer = {
    address: `127.0.0.1:${port}`,
    port,
    set(name, addresses) {
      answers.set(name.toLowerCase(), typeof addresses === 'function' ? addresses : () => addresses);
    },
    setTxt(name, values) {
      texts.set(name.toLowerCase(), values);
    },
    queries: (name) => counts.get(name.toLowerCase()) ?? 0,
    async close() {
      socket.close();
      await once(socket, 'close').catch(() => undefined);
    },
  };
  t.teardown(() => server.close());
  return server;
}
