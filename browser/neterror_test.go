package browser

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"wright/trust/netpolicy"
)

// fakeDNS resolves what the test names and nothing else.
type fakeDNS struct{}

func (fakeDNS) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if host == "localhost" {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// timeoutDialer times out on one port, as an unanswering host would.
type timeoutDialer struct{ port string }

func (d timeoutDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if strings.HasSuffix(addr, ":"+d.port) {
		return nil, &net.OpError{Op: "dial", Net: network, Err: timeoutErr{}}
	}
	return (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, network, addr)
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// Through the policy proxy, every navigation it cannot complete raises the
// error Chromium gives without a proxy and leaves the tab on Chromium's
// error page, for http and for https (a tunnel), and a redirect to a
// blocked host raises too.
func TestProxyFailuresAreNavigationErrors(t *testing.T) {
	needBrowser(t)
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	refusedPort := closed.Addr().(*net.TCPAddr).Port
	closed.Close()
	quiet, _ := net.Listen("tcp", "127.0.0.1:0")
	quietPort := quiet.Addr().(*net.TCPAddr).Port
	quiet.Close()
	reset, _ := net.Listen("tcp", "127.0.0.1:0")
	defer reset.Close()
	go func() {
		for {
			c, err := reset.Accept()
			if err != nil {
				return
			}
			c.(*net.TCPConn).SetLinger(0) // close with RST
			buf := make([]byte, 1024)
			c.Read(buf)
			c.Close()
		}
	}()
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if to := r.URL.Query().Get("to"); to != "" {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		fmt.Fprint(w, "<title>fine</title>")
	}))
	defer ok.Close()
	okPort := ok.Listener.Addr().(*net.TCPAddr).Port
	px, err := netpolicy.Start(netpolicy.Options{
		Resolver: fakeDNS{},
		Dialer:   timeoutDialer{port: fmt.Sprint(quietPort)},
		CheckURL: func(raw string) error {
			if strings.Contains(raw, "://localhost") {
				return errors.New("localhost is blocked here")
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := Launch(ctx, Options{Args: []string{"--proxy-server=" + px.URL(), "--proxy-bypass-list=<-loopback>"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(context.Background())
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, url, want string }{
		{"refused", fmt.Sprintf("http://127.0.0.1:%d/", refusedPort), "net::ERR_CONNECTION_REFUSED"},
		{"reset", "http://" + reset.Addr().String() + "/", "net::ERR_CONNECTION_RESET"},
		{"dns", "http://no-such-host.example/", "net::ERR_NAME_NOT_RESOLVED"},
		{"timeout", fmt.Sprintf("http://127.0.0.1:%d/", quietPort), "net::ERR_TIMED_OUT"},
		{"policy", fmt.Sprintf("http://localhost:%d/", okPort), "net::ERR_BLOCKED_BY_CLIENT"},
		{"redirect to a blocked host", ok.URL + "/?to=" + fmt.Sprintf("http://localhost:%d/", okPort), "net::ERR_BLOCKED_BY_CLIENT"},
		{"https refused", fmt.Sprintf("https://127.0.0.1:%d/", refusedPort), "net::ERR_CONNECTION_REFUSED"},
		{"https dns", "https://no-such-host.example/", "net::ERR_NAME_NOT_RESOLVED"},
		{"https policy", fmt.Sprintf("https://localhost:%d/", okPort), "net::ERR_BLOCKED_BY_CLIENT"},
	}
	for _, c := range cases {
		_, err := p.Goto(ctx, c.url, Load, 20*time.Second)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
		if u := p.URL(); u != "chrome-error://chromewebdata/" {
			t.Errorf("%s: page.url is %s, want chrome-error://chromewebdata/", c.name, u)
		}
		if _, err := p.Goto(ctx, ok.URL, Load, 0); err != nil {
			t.Fatalf("%s: the page is not usable after: %v", c.name, err)
		}
	}
}
