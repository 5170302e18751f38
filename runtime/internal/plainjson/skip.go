package plainjson

import (
	"bytes"
	"strings"
)

// The skipping scanner reads JSON already known to be valid (by Valid or
// by encoding/json): it finds where things end without checking them, so
// a hot path that validated a message once reads its parts without a
// second state machine. On invalid input its answers mean nothing, and
// it may index past the end.

// SkipSpace is the index of the first byte at or after i that is not
// JSON white space.
func SkipSpace[T string | []byte](s T, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// ValueEnd is the index just past the valid JSON value at data[i].
func ValueEnd(data []byte, i int) int {
	switch data[i] {
	case '"':
		return stringEnd(data, i) + 1
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch data[i] {
			case '"':
				i = stringEnd(data, i)
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	}
	for i < len(data) && strings.IndexByte(",}] \t\r\n", data[i]) < 0 {
		i++
	}
	return i
}

// EachMember calls fn with each key, as written between its quotes, and
// raw value of the valid JSON object data, in order. It returns false
// when data is not an object, when fn does, or when a key has escapes
// (its callers compare keys as written).
func EachMember(data []byte, fn func(key, val []byte) bool) bool {
	i := SkipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = SkipSpace(data, i+1)
	if data[i] == '}' {
		return true
	}
	for {
		end := stringEnd(data, i)
		if bytes.IndexByte(data[i+1:end], '\\') >= 0 {
			return false
		}
		key := data[i+1 : end]
		i = SkipSpace(data, SkipSpace(data, end+1)+1) // past the colon
		vend := ValueEnd(data, i)
		if !fn(key, data[i:vend]) {
			return false
		}
		i = SkipSpace(data, vend)
		if data[i] == '}' {
			return true
		}
		i = SkipSpace(data, i+1) // past the comma
	}
}

// stringEnd is the index of the closing quote of the string at data[i].
func stringEnd(data []byte, i int) int {
	for i++; data[i] != '"'; i++ {
		if data[i] == '\\' {
			i++
		}
	}
	return i
}
