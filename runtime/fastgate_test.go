package runtime

import (
	"strings"
	"testing"
)

// TestFastPathSwitches: Options.NoFastPath and $PREFIX_FAST_PATH=off
// keep every call of a real server on the SDK, over stdio and HTTP, and
// a bad $PREFIX_FAST_PATH fails NewServer.
func TestFastPathSwitches(t *testing.T) {
	up := testUpstream(t).URL
	env := testEnv(up)
	for _, c := range []struct {
		name string
		opts Options
	}{
		{"option", Options{Getenv: env, NoFastPath: true}},
		{"environment", Options{Getenv: func(k string) string {
			if k == "PETSTORE_FAST_PATH" {
				return "off"
			}
			return env(k)
		}}},
	} {
		srv, err := NewServer(testSpec(), c.opts)
		if err != nil {
			t.Fatal(err)
		}
		runStdioScript(t, srv, fastScript(false))
		postScript(t, srv, httpScript()[:3])
		if n := srv.fastCalls.Load(); n != 0 {
			t.Errorf("%s: the fast path served %d calls", c.name, n)
		}
	}
	on, err := NewServer(testSpec(), Options{Getenv: env})
	if err != nil {
		t.Fatal(err)
	}
	runStdioScript(t, on, fastScript(false))
	if n := on.fastCalls.Load(); n < fastServed(1) {
		t.Errorf("by default the fast path served %d calls", n)
	}
	_, err = NewServer(testSpec(), Options{Getenv: func(k string) string {
		if k == "PETSTORE_FAST_PATH" {
			return "no"
		}
		return env(k)
	}})
	if err == nil || !strings.Contains(err.Error(), "PETSTORE_FAST_PATH") {
		t.Errorf("NewServer with $PETSTORE_FAST_PATH=no: %v, want an error naming it", err)
	}
}
