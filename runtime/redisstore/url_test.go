package redisstore

import (
	"strings"
	"testing"
	"time"
)

func TestParseURL(t *testing.T) {
	for _, c := range []struct {
		url                       string
		addrs, master, user, pass string
		db                        int
		tls, cluster              bool
	}{
		{url: "redis://127.0.0.1:6380/2", addrs: "127.0.0.1:6380", db: 2},
		{url: "redis://cache", addrs: "cache:6379"},
		{url: "rediss://u:p%40ss@cache:6390/1", addrs: "cache:6390", user: "u", pass: "p@ss", db: 1, tls: true},
		{url: "redis+sentinel://:pw@s1:26379,s2:26380,s3/3?master=main", addrs: "s1:26379,s2:26380,s3:6379", master: "main", pass: "pw", db: 3},
		{url: "redis+cluster://n1:7000,n2:7001", addrs: "n1:7000,n2:7001", cluster: true},
		{url: "rediss+cluster://n1:7000?read_timeout=3s", addrs: "n1:7000", cluster: true, tls: true},
	} {
		o, err := ParseURL(c.url)
		if err != nil {
			t.Errorf("%s: %v", c.url, err)
			continue
		}
		if strings.Join(o.Addrs, ",") != c.addrs || o.MasterName != c.master || o.Username != c.user || o.Password != c.pass || o.DB != c.db || (o.TLSConfig != nil) != c.tls || o.IsClusterMode != c.cluster {
			t.Errorf("%s: got %+v", c.url, o)
		}
	}
	if o, _ := ParseURL("rediss+cluster://n1:7000?read_timeout=3s"); o.ReadTimeout != 3*time.Second {
		t.Errorf("read_timeout not applied: %s", o.ReadTimeout)
	}
	for url, want := range map[string]string{
		"memcached://x":                       "unknown scheme",
		"redis+sentinel://s1,s2/0":            "master=NAME",
		"redis://a:1,b:2":                     "several addresses",
		"redis+cluster://a:1/3":               "only database 0",
		"redis://a:1/x":                       "not a number",
		"redis://a:1/0?pool=3":                "unknown parameter",
		"redis://a:99999":                     "not HOST:PORT",
		"redis://u:secret@a:1/0?read_timeout": "positive duration",
		"localhost:6379":                      "not a URL",
	} {
		_, err := ParseURL(url)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v; want %q", url, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: error reveals the password: %v", url, err)
		}
	}
}
