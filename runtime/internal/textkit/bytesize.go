package textkit

import "strconv"

// ByteSize writes a byte count as people read it in a message: "16 MiB"
// and "64 KiB" when n is a whole number of them, else "1234 bytes".
func ByteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
