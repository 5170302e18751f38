// Package redisstore keeps the handles of oa2mcp servers in Redis, so
// that replicas share them: records are JSON values with a PX expiry, and
// one-time tokens use SET NX. A generated server whose override file sets
// handle_store: redis wires it in; elsewhere pass Open as
// runtime.Options.OpenHandleStore.
package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/redis/go-redis/v9"
)

// redisStore keeps handles in Redis so that replicas share them: records
// are JSON values with a PX expiry; Once is SET NX.
type redisStore struct{ c *redis.Client }

// Open connects to the Redis server of a redis:// or rediss:// URL and
// checks that it answers.
func Open(url string) (runtime.HandleStore, error) {
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

func (r *redisStore) Put(ctx context.Context, key string, rec runtime.HandleRecord, ttl time.Duration) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return r.c.Set(ctx, key, b, ttl).Err()
}

func (r *redisStore) Get(ctx context.Context, key string) (runtime.HandleRecord, bool, error) {
	var rec runtime.HandleRecord
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
