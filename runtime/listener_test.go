package runtime

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestLongCallOutlastsReadTimeout: the read timeout bounds how long a
// client may take to send its request, not the call: a 3 s upstream call
// behind a 1 s read timeout still answers.
func TestLongCallOutlastsReadTimeout(t *testing.T) {
	endpoint, stop := startMainHTTP(t, "--base-url", testUpstream(t).URL, "--http-read-timeout", "1s", "--timeout", "8s")
	defer stop()
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fetch","arguments":{"which":"slow"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	start := time.Now()
	resp, err := (&http.Client{Timeout: 15 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || strings.Contains(string(body), "cancel") || strings.Contains(string(body), `"isError":true`) || time.Since(start) < 2*time.Second {
		t.Fatalf("a 3 s call behind a 1 s read timeout: %d after %s: %s", resp.StatusCode, time.Since(start), body)
	}
}

// TestListenerFlagsValidated: unusable listener bounds are usage errors
// that name the flag.
func TestListenerFlagsValidated(t *testing.T) {
	for _, args := range [][]string{{"--http-read-timeout", "0s"}, {"--http-idle-timeout", "-1s"}, {"--http-max-connections", "0"}, {"--http-write-timeout", "-1s"}} {
		var stderr strings.Builder
		if _, code := parseFlags(testSpec(), args, &stderr); code != 2 || !strings.Contains(stderr.String(), args[0]) {
			t.Errorf("%v: exit %d, %q; want 2 naming the flag", args, code, stderr.String())
		}
	}
}
