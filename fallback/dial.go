package fallback

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// ErrBlockedAddress is wrapped by the Err of an Error when a host resolved
// to an address that the address rules refuse: loopback, private,
// link-local, unspecified, multicast, reserved or cloud metadata, and not
// in Options.AllowHosts.
var ErrBlockedAddress = errors.New("address not allowed")

// blockedError says which address of which host was refused, and why.
type blockedError struct {
	host string
	ip   netip.Addr
	kind string
}

func (e *blockedError) Error() string {
	if e.host == e.ip.String() {
		return fmt.Sprintf("refused to connect to %s: it is a %s address (list it in allowHosts to fetch it)", e.ip, e.kind)
	}
	return fmt.Sprintf("refused to connect to %s: it resolves to %s, a %s address (list it in allowHosts to fetch it)", e.host, e.ip, e.kind)
}

func (e *blockedError) Is(target error) bool { return target == ErrBlockedAddress }

// metadataAddrs are the cloud instance-metadata endpoints; they fall in
// refused ranges anyway but get a name of their own in errors.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OpenStack, ...
	netip.MustParseAddr("fd00:ec2::254"),   // AWS over IPv6
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
}

// reservedRanges are refused besides what netip.Addr's own predicates
// cover (loopback, private, link-local, multicast, unspecified).
var reservedRanges = []struct {
	prefix netip.Prefix
	kind   string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "\"this network\""},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (carrier-grade NAT)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignment"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
}

// blockedKind returns why ip may not be fetched by default, or "" when it
// is an ordinary public address. IPv4 addresses embedded in IPv6 (mapped,
// NAT64 and 6to4) are judged by the IPv4 address.
func blockedKind(ip netip.Addr) string {
	ip = ip.Unmap()
	if v4, ok := embeddedIPv4(ip); ok {
		ip = v4
	}
	for _, m := range metadataAddrs {
		if ip == m {
			return "cloud metadata"
		}
	}
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsPrivate():
		return "private"
	case ip.IsLinkLocalUnicast():
		return "link-local"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsMulticast():
		return "multicast"
	}
	for _, r := range reservedRanges {
		if r.prefix.Contains(ip) {
			return r.kind
		}
	}
	return ""
}

var (
	nat64Prefix = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour   = netip.MustParsePrefix("2002::/16")
)

// embeddedIPv4 returns the IPv4 address inside a NAT64 or 6to4 address.
func embeddedIPv4(ip netip.Addr) (netip.Addr, bool) {
	b := ip.As16()
	switch {
	case !ip.Is6():
		return netip.Addr{}, false
	case nat64Prefix.Contains(ip):
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixToFour.Contains(ip):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	}
	return netip.Addr{}, false
}

// allowList is Options.AllowHosts, parsed.
type allowList struct {
	hosts    map[string]bool // lower-case host names, without a trailing dot
	prefixes []netip.Prefix  // ranges; a single address is a /32 or /128
}

// CheckAllowHosts reports the first malformed entry of an
// Options.AllowHosts list, without building a Fetcher.
func CheckAllowHosts(entries []string) error {
	_, err := parseAllowList(entries)
	return err
}

// parseAllowList parses host names, IP addresses and CIDR ranges.
func parseAllowList(entries []string) (allowList, error) {
	a := allowList{hosts: make(map[string]bool)}
	for _, e := range entries {
		s := strings.TrimSpace(e)
		switch {
		case strings.Contains(s, "/"):
			p, err := netip.ParsePrefix(s)
			if err != nil {
				return allowList{}, fmt.Errorf("allowHosts entry %q: bad CIDR range: %w", e, err)
			}
			a.prefixes = append(a.prefixes, p.Masked())
		case strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]"):
			ip, err := netip.ParseAddr(s[1 : len(s)-1])
			if err != nil {
				return allowList{}, fmt.Errorf("allowHosts entry %q: bad IPv6 address: %w", e, err)
			}
			a.prefixes = append(a.prefixes, netip.PrefixFrom(ip, ip.BitLen()))
		default:
			if ip, err := netip.ParseAddr(s); err == nil {
				a.prefixes = append(a.prefixes, netip.PrefixFrom(ip.Unmap(), ip.Unmap().BitLen()))
				continue
			}
			if !validHostName(s) {
				return allowList{}, fmt.Errorf("allowHosts entry %q: want a host name, an IP address or a CIDR range", e)
			}
			a.hosts[normalizeHost(s)] = true
		}
	}
	return a, nil
}

// validHostName reports whether s looks like a DNS name: letters, digits,
// '-', '_' and dots, not empty.
func validHostName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, c := range s {
		ok := c == '-' || c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !ok {
			return false
		}
	}
	return true
}

func normalizeHost(h string) string { return strings.TrimSuffix(strings.ToLower(h), ".") }

// check returns a *blockedError when host's address ip may not be dialed.
func (a allowList) check(host string, ip netip.Addr) error {
	ip = ip.Unmap()
	kind := blockedKind(ip)
	if kind == "" || a.hosts[normalizeHost(host)] {
		return nil
	}
	for _, p := range a.prefixes {
		if p.Contains(ip) {
			return nil
		}
	}
	return &blockedError{host: host, ip: ip, kind: kind}
}

// guardedDialer resolves a host itself, checks every address against the
// allow list, and dials only checked addresses. Since the check is made on
// the addresses actually dialed, neither a DNS name pointing at a private
// address nor a redirect to one gets around it.
type guardedDialer struct {
	dialer   *net.Dialer
	resolver *net.Resolver
	allow    allowList
}

// DialContext has the signature of http.Transport.DialContext.
func (g *guardedDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ips, err := g.resolve(ctx, network, host)
	if err != nil {
		return nil, err
	}
	// Refuse the host if any of its addresses is refused, so that the
	// outcome does not depend on the order of DNS answers.
	for _, ip := range ips {
		if err := g.allow.check(host, ip); err != nil {
			return nil, err
		}
	}
	var first error
	for _, ip := range ips {
		conn, err := g.dialer.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return conn, nil
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, first
}

// resolve returns the addresses of host: itself if it is an IP literal.
func (g *guardedDialer) resolve(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip.Unmap()}, nil
	}
	family := "ip"
	switch network {
	case "tcp4":
		family = "ip4"
	case "tcp6":
		family = "ip6"
	}
	ips, err := g.resolver.LookupNetIP(ctx, family, host)
	if err != nil {
		return nil, err
	}
	if len(ips) == 0 {
		return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
	}
	for i := range ips {
		ips[i] = ips[i].Unmap()
	}
	return ips, nil
}
