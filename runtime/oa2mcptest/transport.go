package oa2mcptest

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
)

// handlerTransport serves requests with an in-process handler: the HTTP
// semantics of a round trip without a socket.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	in := req.Clone(req.Context())
	if in.Body == nil {
		in.Body = http.NoBody
	}
	in.RequestURI = req.URL.RequestURI()
	in.RemoteAddr = "127.0.0.1:1"
	rec := httptest.NewRecorder()
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		t.h.ServeHTTP(rec, in)
	}()
	select {
	case p := <-done:
		if p == http.ErrAbortHandler {
			return nil, io.ErrUnexpectedEOF
		}
		if p != nil {
			panic(p)
		}
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	resp := rec.Result()
	resp.Request = req
	resp.Body = io.NopCloser(bytes.NewReader(rec.Body.Bytes()))
	return resp, nil
}

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func transportOf(c *http.Client) http.RoundTripper {
	if c.Transport != nil {
		return c.Transport
	}
	return http.DefaultTransport
}
