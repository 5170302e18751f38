package runtime

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// The one redirect policy of upstream calls. A redirect stays on the base
// URL's origin (scheme, host and port) unless the target host is listed in
// ServerDef.RedirectHosts; a hop to such a host carries no credentials,
// no caller headers and no Referer. Every hop is checked again, so a
// chain cannot leave the origin step by step, and a chain is at most
// maxRedirects hops long.

// maxRedirects bounds one upstream call's redirect chain.
const maxRedirects = 5

// redirectSafeHeaders are the request headers kept on a hop to another
// origin: none of them carries a credential or a caller's data.
var redirectSafeHeaders = []string{"Accept", "Accept-Encoding", "Content-Type", "User-Agent", "Traceparent", "Tracestate"}

// redirectError is a redirect this server refused to follow.
type redirectError struct {
	status int    // the status of the redirect response
	target string // host[:port] the upstream named
	loop   bool   // more than maxRedirects hops
	down   bool   // https to http
}

func (e *redirectError) Error() string {
	if e.loop {
		return fmt.Sprintf("more than %d redirects", maxRedirects)
	}
	return "redirect to " + e.target + " refused"
}

// redirectPolicy is the CheckRedirect of the upstream client.
type redirectPolicy struct {
	origin  string          // scheme://host:port of the base URL
	allowed map[string]bool // host:port entries, default ports filled in
	next    func(*http.Request, []*http.Request) error
}

// withRedirectPolicy returns a copy of c that follows redirects by the
// policy, then by c's own CheckRedirect when it has one.
func withRedirectPolicy(c *http.Client, base *url.URL, hosts []string) *http.Client {
	p := &redirectPolicy{origin: originOf(base), allowed: map[string]bool{}, next: c.CheckRedirect}
	for _, h := range hosts {
		p.allowed[hostPortOf(strings.ToLower(h), base.Scheme)] = true
	}
	cc := *c
	cc.CheckRedirect = p.check
	return &cc
}

func (p *redirectPolicy) check(req *http.Request, via []*http.Request) error {
	status := 0
	if req.Response != nil {
		status = req.Response.StatusCode
	}
	// The previous URL may hold a query credential: never pass it on.
	req.Header.Del("Referer")
	if len(via) > maxRedirects {
		return &redirectError{status: status, target: req.URL.Host, loop: true}
	}
	if originOf(req.URL) != p.origin {
		if !p.allowed[hostPortOf(strings.ToLower(req.URL.Host), req.URL.Scheme)] {
			return &redirectError{status: status, target: req.URL.Host}
		}
		if req.URL.Scheme != "https" && strings.HasPrefix(p.origin, "https:") {
			return &redirectError{status: status, target: req.URL.Host, down: true}
		}
		keepOnly(req.Header, redirectSafeHeaders)
	}
	if p.next != nil {
		return p.next(req, via)
	}
	return nil
}

// keepOnly removes every header of h not named in keep.
func keepOnly(h http.Header, keep []string) {
	for k := range h {
		if !containsFold(keep, k) {
			delete(h, k)
		}
	}
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// originOf is scheme://host:port with the scheme's default port filled in.
func originOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	return scheme + "://" + hostPortOf(strings.ToLower(u.Host), scheme)
}

// hostPortOf adds the scheme's default port to a host without one.
func hostPortOf(host, scheme string) string {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	port := "443"
	if strings.EqualFold(scheme, "http") {
		port = "80"
	}
	return net.JoinHostPort(strings.Trim(host, "[]"), port)
}

// redirectFailure is the error of a call whose redirect was refused.
func (s *Server) redirectFailure(bt *boundTool, re *redirectError) *callError {
	e := &callError{kind: KindBadResponse, status: re.status, retryAfter: retryAfterUnknown}
	switch {
	case re.loop:
		e.kind = KindUpstream
		e.msg = fmt.Sprintf("The API answered %s with more than %d redirects in a row (a redirect loop), so there is no answer. Do not retry unchanged; tell the user the API is misconfigured.", bt.spec.Name, maxRedirects)
	case re.down:
		e.msg = fmt.Sprintf("The API answered %s with a redirect from https to plain http at %s, which this server does not follow. Do not retry; tell the user the API redirects to an insecure address.", bt.spec.Name, re.target)
	default:
		e.msg = fmt.Sprintf("The API answered %s with a redirect to another host, %s, which this server does not follow: credentials and data stay with the API at %s. Do not retry; if %s belongs to the API, add it to server.allow_redirect_hosts in the override file and generate again, otherwise tell the user the API redirects elsewhere.",
			bt.spec.Name, re.target, s.baseHost, re.target)
	}
	return e
}

// asRedirectError finds a refused redirect in err.
func asRedirectError(err error) (*redirectError, bool) {
	var re *redirectError
	ok := errors.As(err, &re)
	return re, ok
}
