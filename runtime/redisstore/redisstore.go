// Package redisstore keeps the handles, one-time tokens and rate limits
// of oa2mcp servers in Redis, so that replicas share them. A record is a
// hash (type, owner, value, expiry) with a PX time to live; updates are
// WATCH/MULTI transactions retried a bounded number of times, renewals a
// script that moves only the expiry, one-time tokens SET NX, and rate
// limits a GCRA script on Redis's clock. Every command and script touches
// one key, so the store works unchanged on Redis Cluster. A generated
// server whose override file sets handle_store: redis wires it in;
// elsewhere pass Open as runtime.Options.OpenHandleStore.
package redisstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/redis/go-redis/v9"
)

// redisStore is a runtime.HandleStore and runtime.RateStore on one
// go-redis universal client (single node, Sentinel or Cluster).
type redisStore struct {
	c redis.UniversalClient
}

// Open connects to the Redis deployment a URL names (see ParseURL for
// the forms) and checks that it answers.
func Open(url string) (runtime.HandleStore, error) {
	opt, err := ParseURL(url)
	if err != nil {
		return nil, err
	}
	c := redis.NewUniversalClient(opt)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		return nil, fmt.Errorf("the Redis handle store at %s is not reachable: %w", redactURL(url), err)
	}
	return &redisStore{c: c}, nil
}

// Record fields of the hash under a handle key.
const (
	fieldType    = "t"
	fieldOwner   = "o"
	fieldValue   = "v"
	fieldExpires = "e"
)

// maxUpdateAttempts bounds the optimistic retries of one Update: with
// jittered backoff it lets dozens of writers of one key all succeed and
// still ends a call within a second when the key is hammered.
const maxUpdateAttempts = 64

func recordFields(rec runtime.HandleRecord) []any {
	return []any{fieldType, rec.Type, fieldOwner, rec.Owner, fieldValue, string(rec.Value), fieldExpires, rec.Expires}
}

// parseRecord reads a record hash; false when it is empty or unreadable.
func parseRecord(m map[string]string) (runtime.HandleRecord, bool) {
	if len(m) == 0 {
		return runtime.HandleRecord{}, false
	}
	e, err := strconv.ParseInt(m[fieldExpires], 10, 64)
	if err != nil {
		return runtime.HandleRecord{}, false
	}
	return runtime.HandleRecord{Type: m[fieldType], Owner: m[fieldOwner], Value: []byte(m[fieldValue]), Expires: e}, true
}

// ttlOf is a positive time to live for PEXPIRE.
func ttlOf(d time.Duration) time.Duration { return max(d, time.Millisecond) }

func (r *redisStore) Put(ctx context.Context, key string, rec runtime.HandleRecord, ttl time.Duration) error {
	_, err := r.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, key)
		p.HSet(ctx, key, recordFields(rec)...)
		p.PExpire(ctx, key, ttlOf(ttl))
		return nil
	})
	return err
}

func (r *redisStore) Get(ctx context.Context, key string) (runtime.HandleRecord, bool, error) {
	m, err := r.c.HGetAll(ctx, key).Result()
	if err != nil {
		return runtime.HandleRecord{}, false, err
	}
	rec, ok := parseRecord(m)
	return rec, ok, nil
}

func (r *redisStore) Update(ctx context.Context, key string, fn runtime.UpdateFunc) (runtime.HandleRecord, bool, error) {
	var out runtime.HandleRecord
	found := false
	txf := func(tx *redis.Tx) error {
		m, err := tx.HGetAll(ctx, key).Result()
		if err != nil {
			return err
		}
		cur, ok := parseRecord(m)
		if found = ok; !ok {
			return nil
		}
		next, ttl, err := fn(cur)
		if err != nil {
			return err
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.HSet(ctx, key, recordFields(next)...)
			p.PExpire(ctx, key, ttlOf(ttl))
			return nil
		})
		out = next
		return err
	}
	for attempt := 0; attempt < maxUpdateAttempts; attempt++ {
		err := r.c.Watch(ctx, txf, key)
		if !errors.Is(err, redis.TxFailedErr) {
			return out, found, err
		}
		// Another writer won the race: back off a little, at random, so
		// that the writers of one key do not collide again in lockstep.
		wait := time.Duration(rand.Int64N(int64(time.Millisecond) << min(attempt, 4)))
		select {
		case <-ctx.Done():
			return out, found, ctx.Err()
		case <-time.After(wait):
		}
	}
	return out, found, fmt.Errorf("redisstore: %d concurrent writers kept changing %s; gave up", maxUpdateAttempts, key)
}

// renewScript moves a record's expiry without reading or writing its
// value: HSET of the expiry field and PEXPIRE, on an existing key only
// (a consumed handle stays gone).
var renewScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'e', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`)

func (r *redisStore) Renew(ctx context.Context, key string, expires int64, ttl time.Duration) (bool, error) {
	n, err := renewScript.Run(ctx, r.c, []string{key}, expires, ttlOf(ttl).Milliseconds()).Int()
	return n == 1, err
}

func (r *redisStore) Delete(ctx context.Context, key string) error {
	return r.c.Del(ctx, key).Err()
}

func (r *redisStore) Once(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	return r.c.SetNX(ctx, key, "1", ttlOf(ttl)).Result()
}

func (r *redisStore) Close() error { return r.c.Close() }
