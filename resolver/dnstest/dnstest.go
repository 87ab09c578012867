// Package dnstest runs a real DNS server (miekg/dns) on loopback for tests.
// Records are added and removed while it runs, and a name can be made to
// answer SERVFAIL, so that tests exercise the resolver over the wire.
package dnstest

import (
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/miekg/dns"
)

// Server is an authoritative-for-everything DNS server on 127.0.0.1.
type Server struct {
	Addr string // host:port, for HERALD_DNS_SERVER and resolver.New

	mu       sync.Mutex
	records  map[string][]dns.RR // key: fqdn lower-case
	rcodes   map[string]int      // forced response codes per fqdn
	udp, tcp *dns.Server

	udpSize    uint16 // EDNS0 UDP size of the last UDP query; 0 without EDNS0
	tcpQueries int
}

// UDPSize is the EDNS0 UDP payload size the last UDP query advertised, 0
// when it carried no EDNS0.
func (s *Server) UDPSize() uint16 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.udpSize
}

// TCPQueries counts the queries that came over TCP.
func (s *Server) TCPQueries() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tcpQueries
}

// Start starts a server on UDP and TCP of one free loopback port and stops
// it when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{records: map[string][]dns.RR{}, rcodes: map[string]int{}}
	pc, ln, err := listenBoth()
	if err != nil {
		t.Fatal(err)
	}
	s.Addr = pc.LocalAddr().String()
	s.udp = &dns.Server{PacketConn: pc, Handler: s}
	s.tcp = &dns.Server{Listener: ln, Handler: s}
	started := make(chan struct{}, 2)
	s.udp.NotifyStartedFunc = func() { started <- struct{}{} }
	s.tcp.NotifyStartedFunc = func() { started <- struct{}{} }
	go s.udp.ActivateAndServe()
	go s.tcp.ActivateAndServe()
	<-started
	<-started
	t.Cleanup(func() {
		s.udp.Shutdown()
		s.tcp.Shutdown()
	})
	return s
}

// listenBoth opens UDP and TCP on one free loopback port. The UDP port is
// free for UDP only: another test's TCP socket may hold the same number,
// so a clash is retried on a fresh port.
func listenBoth() (net.PacketConn, net.Listener, error) {
	var err error
	for range 20 {
		var pc net.PacketConn
		if pc, err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
			return nil, nil, err
		}
		var ln net.Listener
		if ln, err = net.Listen("tcp", pc.LocalAddr().String()); err == nil {
			return pc, ln, nil
		}
		pc.Close()
	}
	return nil, nil, err
}

// Add adds records in zone-file syntax, e.g.
// "example.com. 300 IN MX 10 mx.example.com.".
func (s *Server) Add(t testing.TB, lines ...string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, line := range lines {
		rr, err := dns.NewRR(line)
		if err != nil {
			t.Fatalf("dnstest: bad record %q: %v", line, err)
		}
		key := strings.ToLower(rr.Header().Name)
		s.records[key] = append(s.records[key], rr)
	}
}

// Remove deletes every record of the given type at name.
func (s *Server) Remove(name string, qtype uint16) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := strings.ToLower(dns.Fqdn(name))
	kept := s.records[key][:0]
	for _, rr := range s.records[key] {
		if rr.Header().Rrtype != qtype {
			kept = append(kept, rr)
		}
	}
	s.records[key] = kept
}

// SetRcode makes every query for name answer rcode (dns.RcodeServerFailure,
// say). dns.RcodeSuccess restores normal answers.
func (s *Server) SetRcode(name string, rcode int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := strings.ToLower(dns.Fqdn(name))
	if rcode == dns.RcodeSuccess {
		delete(s.rcodes, key)
		return
	}
	s.rcodes[key] = rcode
}

// ServeDNS answers from the records: NXDOMAIN when the name has no record at
// all, an empty answer when it has records of other types only.
func (s *Server) ServeDNS(w dns.ResponseWriter, req *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(req)
	m.Authoritative = true
	if len(req.Question) == 1 {
		q := req.Question[0]
		key := strings.ToLower(q.Name)
		s.mu.Lock()
		rcode, forced := s.rcodes[key]
		rrs := s.records[key]
		switch {
		case forced:
			m.Rcode = rcode
		case len(rrs) == 0:
			m.Rcode = dns.RcodeNameError
		default:
			for _, rr := range rrs {
				if rr.Header().Rrtype == q.Qtype {
					m.Answer = append(m.Answer, dns.Copy(rr))
				}
			}
		}
		s.mu.Unlock()
	}
	// Over UDP an answer is cut to what the client can take (512 bytes, or
	// its EDNS0 size) and marked truncated, as real servers do, so that a
	// client must ask again over TCP for the rest.
	s.mu.Lock()
	if _, ok := w.LocalAddr().(*net.UDPAddr); ok {
		size := uint16(dns.MinMsgSize)
		s.udpSize = 0
		if opt := req.IsEdns0(); opt != nil {
			size, s.udpSize = opt.UDPSize(), opt.UDPSize()
			m.SetEdns0(size, false)
		}
		m.Truncate(int(size))
	} else {
		s.tcpQueries++
	}
	s.mu.Unlock()
	w.WriteMsg(m)
}
