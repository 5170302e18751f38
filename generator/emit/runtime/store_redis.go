//go:build oa2mcp_redis

package rt

// This file is copied into a generated server only when the override
// file sets handle_store: redis (ir.Server.Redis); the copy has no build
// tag. Here the tag keeps the runtime's default build free of go-redis;
// test it with `go test -tags oa2mcp_redis`.

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

func init() { newRedisStore = openRedisStore }

// redisStore keeps handles in Redis so that replicas share them: records
// are JSON values with a PX expiry; Once is SET NX.
type redisStore struct{ c *redis.Client }

func openRedisStore(url string) (HandleStore, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, err
	}
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = 2*time.Second, time.Second, time.Second
	c := redis.NewClient(opt)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		return nil, errors.New("the Redis handle store at " + opt.Addr + " is not reachable: " + err.Error())
	}
	return &redisStore{c: c}, nil
}

func (r *redisStore) Put(ctx context.Context, key string, rec HandleRecord, ttl time.Duration) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return r.c.Set(ctx, key, b, ttl).Err()
}

func (r *redisStore) Get(ctx context.Context, key string) (HandleRecord, bool, error) {
	var rec HandleRecord
	b, err := r.c.Get(ctx, key).Bytes()
	if errors.Is(err, redis.Nil) {
		return rec, false, nil
	}
	if err != nil {
		return rec, false, err
	}
	if json.Unmarshal(b, &rec) != nil {
		return rec, false, nil
	}
	return rec, true, nil
}

func (r *redisStore) Delete(ctx context.Context, key string) error {
	return r.c.Del(ctx, key).Err()
}

func (r *redisStore) Once(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	return r.c.SetNX(ctx, key, "1", ttl).Result()
}

func (r *redisStore) Close() error { return r.c.Close() }
