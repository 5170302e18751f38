package runtime

import (
	"net/http"
	"net/http/httptrace"
	"slices"
	"strings"
)

// appendRequestHead appends the request line and header block of req, a
// request without a body, byte for byte as req.Write writes them
// (TestRequestHeadIsRequestWrite holds it to that), and reports whether
// it did. Request.Write formats each line with fmt and builds a transfer
// writer and a sorted copy of the header per call, 5% of a stdio
// server's CPU per call; most tool calls are a GET with a few headers.
// Anything outside that plain case returns false, and the caller hands
// req to req.Write: a body, trailers, Close, a client trace, a method
// that is not a token, a host outside letters, digits and ".-:[]", a
// request URI with a control byte.
func appendRequestHead(b []byte, req *http.Request) ([]byte, bool) {
	if req.Body != nil && req.Body != http.NoBody || req.ContentLength != 0 || len(req.TransferEncoding) > 0 ||
		req.Trailer != nil || req.Close || req.URL == nil || httptrace.ContextClientTrace(req.Context()) != nil {
		return b, false
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	ruri := req.URL.RequestURI()
	if !isHeaderToken(method) || !plainHost(host) || hasCTLByte(ruri) {
		return b, false
	}
	b = append(append(append(append(b, method...), ' '), ruri...), " HTTP/1.1\r\nHost: "...)
	b = append(append(b, host...), "\r\n"...)
	agent := "Go-http-client/1.1"
	if vv, set := req.Header["User-Agent"]; set {
		agent = ""
		if len(vv) > 0 {
			agent = vv[0]
		}
	}
	if agent != "" {
		b = appendHeaderLine(b, "User-Agent", agent)
	}
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		b = append(b, "Content-Length: 0\r\n"...) // "many servers expect" one, says net/http
	}
	return append(appendSortedHeader(b, req.Header), "\r\n"...), true
}

// appendSortedHeader appends h's fields in key order, as Request.Write
// does: without the ones it writes itself (Host, User-Agent,
// Content-Length, Transfer-Encoding, Trailer, by exact key) and without
// keys that are not field names.
func appendSortedHeader(b []byte, h http.Header) []byte {
	var small [16]string
	keys := small[:0]
	for k := range h {
		switch k {
		case "Host", "User-Agent", "Content-Length", "Transfer-Encoding", "Trailer":
			continue
		}
		if isHeaderToken(k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range h[k] {
			b = appendHeaderLine(b, k, v)
		}
	}
	return b
}

// headerNewlineToSpace is net/http's rewrite of a header value.
var headerNewlineToSpace = strings.NewReplacer("\r", " ", "\n", " ")

// appendHeaderLine appends "key: value\r\n" with the value as net/http
// writes it: CR and LF as spaces, then ASCII white space trimmed.
func appendHeaderLine(b []byte, key, value string) []byte {
	value = strings.Trim(headerNewlineToSpace.Replace(value), " \t\r\n")
	return append(append(append(append(b, key...), ": "...), value...), "\r\n"...)
}

// isHeaderToken reports a non-empty RFC 9110 token: a method or a field
// name as net/http accepts them.
func isHeaderToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// plainHost reports a non-empty host of letters, digits and ".-:[]",
// which net/http writes unchanged (no punycode, no IPv6 zone to drop).
func plainHost(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == ':' || c == '[' || c == ']') {
			return false
		}
	}
	return true
}

// hasCTLByte reports a control byte (or DEL), which Request.Write refuses
// in a request URI.
func hasCTLByte(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] == 0x7f {
			return true
		}
	}
	return false
}
