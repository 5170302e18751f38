//go:build linux && e2e

package e2e

import (
	"archive/zip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/internal/testenv"
)

// fakeSDKVersion is a go-sdk version no differential test ran against.
const fakeSDKVersion = "v1.99.0"

// gateProgram starts a server and exits; the runtime logs at start why
// the fast path is off, if it is.
const gateProgram = `package main

import (
	"log/slog"
	"os"

	"github.com/oa2mcp/oa2mcp/runtime"
)

func main() {
	_, err := runtime.NewServer(&runtime.ServerDef{Name: "gate", EnvPrefix: "GATE"},
		runtime.Options{BaseURL: "http://127.0.0.1:9", Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil {
		panic(err)
	}
}
`

// TestFastPathGateLinkedVersion links a real binary against go-sdk
// v1.8.0 published under a version the fast path was not tested with
// (served by a file module proxy on this machine), and against v1.8.0
// itself: the first starts with the fast path off, naming the version,
// the second with it on.
func TestFastPathGateLinkedVersion(t *testing.T) {
	proxy := fakeSDKProxy(t)
	for _, c := range []struct {
		version string
		off     bool
	}{{fakeSDKVersion, true}, {"v1.8.0", false}} {
		dir := testenv.TempModule(t, "example.com/gate")
		gomod := filepath.Join(dir, "go.mod")
		b, err := os.ReadFile(gomod)
		must(t, err)
		must(t, os.WriteFile(gomod, []byte(strings.Replace(string(b), "go-sdk v1.8.0", "go-sdk "+c.version, 1)), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(gateProgram), 0o644))
		build := exec.Command("go", "build", "-o", "gate", ".")
		build.Dir = dir
		build.Env = append(testenv.GoEnv(), "GOPROXY=file://"+proxy, "GOSUMDB=off", "GOFLAGS=-mod=mod")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build with go-sdk %s: %v\n%s", c.version, err, truncate(string(out), 4000))
		}
		out, err := exec.Command(filepath.Join(dir, "gate")).CombinedOutput()
		if err != nil {
			t.Fatalf("the server linked with go-sdk %s: %v\n%s", c.version, err, out)
		}
		said := strings.Contains(string(out), "without the fast path")
		if said != c.off || (c.off && !strings.Contains(string(out), "go-sdk "+c.version)) {
			t.Errorf("linked with go-sdk %s, fast path off %v, want %v; the server said:\n%s", c.version, said, c.off, out)
		}
	}
}

// fakeSDKProxy writes a file module proxy that serves go-sdk v1.8.0's
// files from the module cache as fakeSDKVersion, and returns its folder.
func fakeSDKProxy(t *testing.T) string {
	t.Helper()
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	must(t, err)
	src := filepath.Join(strings.TrimSpace(string(modcache)), "github.com", "modelcontextprotocol", "go-sdk@v1.8.0")
	proxy := t.TempDir()
	at := filepath.Join(proxy, "github.com", "modelcontextprotocol", "go-sdk", "@v")
	must(t, os.MkdirAll(at, 0o755))
	gomod, err := os.ReadFile(filepath.Join(src, "go.mod"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(at, fakeSDKVersion+".mod"), gomod, 0o644))
	must(t, os.WriteFile(filepath.Join(at, fakeSDKVersion+".info"), []byte(`{"Version":"`+fakeSDKVersion+`","Time":"2026-01-01T00:00:00Z"}`), 0o644))
	must(t, os.WriteFile(filepath.Join(at, "list"), []byte(fakeSDKVersion+"\n"), 0o644))
	f, err := os.Create(filepath.Join(at, fakeSDKVersion+".zip"))
	must(t, err)
	zw := zip.NewWriter(f)
	prefix := "github.com/modelcontextprotocol/go-sdk@" + fakeSDKVersion + "/"
	must(t, filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		w, err := zw.Create(prefix + filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}))
	must(t, zw.Close())
	must(t, f.Close())
	return proxy
}
