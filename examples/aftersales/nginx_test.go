package aftersales

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startNginx runs nginx (Debian's package) on a free loopback port as a
// round-robin load balancer without stickiness over the replicas, and
// returns its MCP endpoint. A missing nginx fails the test.
func startNginx(t *testing.T, rs *replicaSet) string {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		if _, e := os.Stat("/usr/sbin/nginx"); e != nil {
			t.Fatal("nginx is not installed; run scripts/install-deps.sh (it installs the Debian package nginx)")
		}
		bin = "/usr/sbin/nginx"
	}
	dir := t.TempDir()
	port := freePort(t)
	var servers strings.Builder
	for i := range rs.ports {
		// A replica that refuses connections is skipped for a second;
		// requests already sent to one that dies fail (502), as in
		// production.
		fmt.Fprintf(&servers, "    server %s max_fails=1 fail_timeout=1s;\n", rs.addr(i))
	}
	user := ""
	if os.Getuid() == 0 {
		user = "user root;\n"
	}
	conf := fmt.Sprintf(`%sdaemon off;
worker_processes 1;
pid %[2]s/nginx.pid;
error_log %[2]s/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path %[2]s/body;
  proxy_temp_path %[2]s/proxy;
  fastcgi_temp_path %[2]s/fastcgi;
  uwsgi_temp_path %[2]s/uwsgi;
  scgi_temp_path %[2]s/scgi;
  upstream replicas {
%[3]s    keepalive 32;
  }
  server {
    listen 127.0.0.1:%[4]d;
    location / {
      proxy_pass http://replicas;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_read_timeout 30s;
    }
  }
}
`, user, dir, servers.String(), port)
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", path, "-e", filepath.Join(dir, "error.log"))
	// Output to a file, not a pipe: nginx's worker would hold a pipe open
	// after its master stops, and Wait would never return.
	out, err := os.Create(filepath.Join(dir, "stderr.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// SIGTERM: the master stops its workers, then itself.
	t.Cleanup(func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for i := 0; i < 200; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr + "/mcp"
		}
		time.Sleep(20 * time.Millisecond)
	}
	logs, _ := os.ReadFile(out.Name())
	t.Fatalf("nginx did not start on %s: %s", addr, logs)
	return ""
}
