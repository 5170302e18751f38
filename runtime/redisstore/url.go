package redisstore

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// ParseURL reads the --handle-store URL forms into go-redis universal
// options:
//
//	redis://[USER:PASSWORD@]HOST:PORT[/DB]            one server
//	rediss://[USER:PASSWORD@]HOST:PORT[/DB]           one server over TLS
//	redis+sentinel://[USER:PASSWORD@]S1:P1,S2:P2[/DB]?master=NAME
//	                                                  Sentinel: the sentinels' addresses and the master's name
//	redis+cluster://[USER:PASSWORD@]H1:P1,H2:P2       Redis Cluster: any of its nodes
//
// rediss+sentinel and rediss+cluster use TLS. USER and PASSWORD are the
// data nodes' credentials; for sentinels that need their own, add
// sentinel_password=... (and sentinel_user=...). The port defaults to 6379.
// An unknown scheme or query parameter is an error, not ignored.
func ParseURL(raw string) (*redis.UniversalOptions, error) {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return nil, fmt.Errorf("handle store %q: not a URL; use redis://HOST:PORT/DB, rediss://, redis+sentinel:// or redis+cluster://", redactURL(raw))
	}
	base, mode, _ := strings.Cut(scheme, "+")
	if base != "redis" && base != "rediss" || mode != "" && mode != "sentinel" && mode != "cluster" {
		return nil, fmt.Errorf("handle store %q: unknown scheme %q; use redis, rediss, redis+sentinel, rediss+sentinel, redis+cluster or rediss+cluster", redactURL(raw), scheme)
	}
	authority, tail, _ := strings.Cut(rest, "/")
	tail = "/" + tail
	if i := strings.IndexByte(authority, '?'); i >= 0 {
		authority, tail = authority[:i], "/"+authority[i:]
	}
	userinfo, hosts := "", authority
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		userinfo, hosts = authority[:i+1], authority[i+1:]
	}
	// The host list is taken apart by hand (url.Parse refuses commas in a
	// host); the rest is an ordinary URL.
	u, err := url.Parse(base + "://" + userinfo + "host" + tail)
	if err != nil {
		return nil, fmt.Errorf("handle store %q: %v", redactURL(raw), err)
	}
	opt := &redis.UniversalOptions{DialTimeout: 2 * time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second}
	for _, h := range strings.Split(hosts, ",") {
		addr, err := hostPort(h)
		if err != nil {
			return nil, fmt.Errorf("handle store %q: %v", redactURL(raw), err)
		}
		opt.Addrs = append(opt.Addrs, addr)
	}
	if len(opt.Addrs) > 1 && mode == "" {
		return nil, fmt.Errorf("handle store %q: several addresses need redis+sentinel:// or redis+cluster://", redactURL(raw))
	}
	if base == "rediss" {
		host, _, _ := net.SplitHostPort(opt.Addrs[0])
		opt.TLSConfig = &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	}
	opt.Username = u.User.Username()
	opt.Password, _ = u.User.Password()
	if db := strings.Trim(u.Path, "/"); db != "" {
		n, err := strconv.Atoi(db)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("handle store %q: database %q is not a number", redactURL(raw), db)
		}
		if mode == "cluster" && n != 0 {
			return nil, fmt.Errorf("handle store %q: Redis Cluster has only database 0", redactURL(raw))
		}
		opt.DB = n
	}
	if err := applyQuery(opt, u.Query(), mode); err != nil {
		return nil, fmt.Errorf("handle store %q: %v", redactURL(raw), err)
	}
	opt.IsClusterMode = mode == "cluster"
	return opt, nil
}

// applyQuery sets the options of the URL's query.
func applyQuery(opt *redis.UniversalOptions, q url.Values, mode string) error {
	for k, vs := range q {
		v := vs[len(vs)-1]
		switch {
		case k == "master" && mode == "sentinel":
			opt.MasterName = v
		case k == "sentinel_user" && mode == "sentinel":
			opt.SentinelUsername = v
		case k == "sentinel_password" && mode == "sentinel":
			opt.SentinelPassword = v
		case k == "dial_timeout" || k == "read_timeout" || k == "write_timeout":
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return fmt.Errorf("%s=%q is not a positive duration such as 2s", k, v)
			}
			*map[string]*time.Duration{"dial_timeout": &opt.DialTimeout, "read_timeout": &opt.ReadTimeout, "write_timeout": &opt.WriteTimeout}[k] = d
		default:
			return fmt.Errorf("unknown parameter %q; known: master, sentinel_user, sentinel_password (Sentinel), dial_timeout, read_timeout, write_timeout", k)
		}
	}
	if mode == "sentinel" && opt.MasterName == "" {
		return fmt.Errorf("a Sentinel URL needs ?master=NAME, the name the sentinels monitor")
	}
	return nil
}

// hostPort checks one HOST[:PORT] and adds the default port.
func hostPort(h string) (string, error) {
	if h == "" {
		return "", fmt.Errorf("an address is empty")
	}
	host, port, err := net.SplitHostPort(h)
	if err != nil {
		host, port = h, "6379"
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 || host == "" {
		return "", fmt.Errorf("address %q is not HOST:PORT", h)
	}
	return net.JoinHostPort(host, port), nil
}

// redactURL hides a password in a URL for error text.
func redactURL(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	at := strings.LastIndexByte(rest, '@')
	if at < 0 {
		return raw
	}
	user, _, hasPass := strings.Cut(rest[:at], ":")
	if !hasPass {
		return raw
	}
	return scheme + "://" + user + ":xxxxx" + rest[at:]
}
