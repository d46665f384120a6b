package browser

import "github.com/go-rod/rod/lib/proto"

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
