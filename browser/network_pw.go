package browser

import (
	"context"
	"sync"

	"github.com/go-rod/rod/lib/proto"
)

// securityDetails is a TLS response's certificate summary in Playwright's
// shape (Response.security_details), nil for plain HTTP.
func securityDetails(d *proto.NetworkSecurityDetails) map[string]any {
	if d == nil {
		return nil
	}
	return map[string]any{
		"protocol": d.Protocol, "subjectName": d.SubjectName, "issuer": d.Issuer,
		"validFrom": float64(d.ValidFrom), "validTo": float64(d.ValidTo),
	}
}

// insecurePages holds the pages whose context ignores certificate errors
// (Playwright's ignore_https_errors): their request.fetch does too.
var insecurePages sync.Map // *Page -> bool

// IgnoreHTTPSErrors makes the page accept any certificate, for its own
// loads and for request.fetch.
func (p *Page) IgnoreHTTPSErrors(ctx context.Context) error {
	o := p.begin(ctx, 0)
	defer o.end()
	if err := callCDP(o.rodPage(), proto.SecuritySetIgnoreCertificateErrors{Ignore: true}); err != nil {
		return o.fail(err, "ignoring certificate errors")
	}
	if _, loaded := insecurePages.LoadOrStore(p, true); !loaded {
		context.AfterFunc(p.ctx, func() { insecurePages.Delete(p) })
	}
	return nil
}

func (p *Page) ignoresHTTPSErrors() bool {
	_, ok := insecurePages.Load(p)
	return ok
}
