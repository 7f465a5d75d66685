import ipaddr from 'ipaddr.js';

// Which IP addresses a webhook delivery may connect to: ordinary public
// unicast only. Loopback, private ranges, cloud metadata services and every
// IPv6 form that tunnels or translates to those are refused (outbound.ts
// applies this to a url's IP literal and to every address its name resolves to).

export type IpAddress = ReturnType<typeof ipaddr.parse>;

// How each non-unicast range of ipaddr.js reads in a message, with its
// article. A range missing here (a newer ipaddr.js) is still refused, under
// its own name.
const RANGE_LABELS: Record<string, string> = {
  unspecified: 'an unspecified',
  broadcast: 'a broadcast',
  multicast: 'a multicast',
  linkLocal: 'a link-local',
  loopback: 'a loopback',
  carrierGradeNat: 'a carrier-grade NAT',
  private: 'a private',
  reserved: 'a reserved',
  benchmarking: 'a benchmarking',
  as112: 'an AS112',
  as112v6: 'an AS112',
  amt: 'an AMT relay',
  uniqueLocal: 'a unique-local',
  ipv4Mapped: 'an IPv4-mapped IPv6',
  rfc6145: 'an IPv4-translated IPv6',
  rfc6052: 'a NAT64',
  '6to4': 'a 6to4',
  teredo: 'a Teredo',
  deprecatedSiteLocal: 'a site-local',
  discard: 'a discard-only',
  deprecatedOrchid: 'an ORCHID',
  orchid2: 'an ORCHID',
  droneRemoteIdProtocolEntityTags: 'a drone remote ID',
  segmentRouting: 'a segment-routing',
};

// Instance metadata services. Most already fall in a refused range (link-local
// 169.254/16, carrier-grade NAT 100.64/10, unique-local fc00::/7); they are
// named so the message says what was hit. Azure's WireServer 168.63.129.16 is
// a public unicast address and is refused only because it is listed here.
const METADATA_ADDRESSES = new Set(
  [
    '169.254.169.254', // AWS, GCP, Azure, OCI, DigitalOcean, OpenStack
    '169.254.170.2', // AWS ECS task metadata
    '100.100.100.200', // Alibaba Cloud
    '168.63.129.16', // Azure WireServer
    '192.0.0.192', // Oracle Cloud (legacy)
    'fd00:ec2::254', // AWS IPv6 instance metadata
  ].map((a) => ipaddr.parse(a).toNormalizedString()),
);

// Only 2000::/3 is allocated for global unicast; ipaddr.js calls the rest of
// the IPv6 space 'unicast' too, including IPv4-compatible ::a.b.c.d (e.g.
// ::7f00:1), which some stacks route to the embedded IPv4 address.
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/** The article-and-kind of a forbidden address ("a loopback"), or null when it may be contacted. */
export function forbiddenKind(addr: IpAddress): string | null {
  if (METADATA_ADDRESSES.has(addr.toNormalizedString())) return 'a cloud metadata';
  // ipaddr.process() is deliberately not used: it turns ::ffff:a.b.c.d into
  // a.b.c.d, which would judge a mapped address by its IPv4 half. Mapped,
  // translated and NAT64 forms are refused outright by their own ranges.
  const range = addr.range();
  if (range !== 'unicast') return RANGE_LABELS[range] ?? `a ${range}`;
  if (addr.kind() === 'ipv6' && !addr.match(IPV6_GLOBAL_UNICAST)) return 'a reserved';
  return null;
}

export function parseIp(ip: string): IpAddress | null {
  try {
    return ipaddr.parse(ip);
  } catch {
    return null;
  }
}

/** null when the IP may be contacted, else the reason, e.g. "loopback address 127.0.0.1". */
export function forbiddenAddressReason(ip: string): string | null {
  const addr = parseIp(ip);
  if (!addr) return `invalid IP address ${ip}`;
  const kind = forbiddenKind(addr);
  return kind === null ? null : `${kind.replace(/^an? /, '')} address ${addr.toString()}`;
}
