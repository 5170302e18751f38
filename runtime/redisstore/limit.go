package redisstore

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// gcraScript is the generic cell rate algorithm on one key holding the
// theoretical arrival time (TAT) in microseconds of Redis's own clock, so
// replicas with skewed clocks agree. ARGV: emission interval (µs), burst.
// It returns 0 when the call is admitted, else the microseconds until one
// would be. Admitted calls in any window of W seconds: at most
// burst + W*rate, exactly as a token bucket of that size and rate.
var gcraScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end
local allowAt = tat + interval - burst * interval
if now < allowAt then return math.max(1, math.ceil(allowAt - now)) end
local newTat = tat + interval
redis.call('SET', KEYS[1], string.format('%.0f', newTat), 'PX', math.ceil((newTat - now) / 1000) + 1)
return 0`)

// Allow admits one call under key for a limit of perMinute calls a
// minute with burst at once (runtime.RateStore).
func (r *redisStore) Allow(ctx context.Context, key string, perMinute float64, burst int) (bool, time.Duration, error) {
	interval := int64(60e6 / perMinute)
	wait, err := gcraScript.Run(ctx, r.c, []string{key}, max(interval, 1), max(burst, 1)).Int64()
	if err != nil {
		return false, 0, err
	}
	return wait == 0, time.Duration(wait) * time.Microsecond, nil
}
