package jsonschema

import (
	"math"
	"strconv"
	"strings"
)

// decimal is mant×10^exp, when the mantissa fits in an int64.
type decimal struct {
	mant int64
	exp  int
	ok   bool
}

// parseDecimal reads a JSON number as a decimal, without allocating; ok
// is false when it has more than 18 significant digits or a huge
// exponent.
func parseDecimal(s string) decimal {
	var d decimal
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	digits, fracDigits, dot := 0, 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '.' && !dot:
			dot = true
		case isDigit(c):
			if dot {
				fracDigits++
			}
			if d.mant == 0 && c == '0' {
				continue // a leading zero
			}
			if digits++; digits > 18 {
				return decimal{}
			}
			d.mant = d.mant*10 + int64(c-'0')
		case c == 'e' || c == 'E':
			e, err := strconv.Atoi(s[i+1:])
			if err != nil || e > 400 || e < -400 {
				return decimal{}
			}
			d.exp, i = e, len(s)
		default:
			return decimal{}
		}
	}
	d.exp -= fracDigits
	for d.mant != 0 && d.mant%10 == 0 { // normal form: 10.0 is 1e1
		d.mant /= 10
		d.exp++
	}
	if neg {
		d.mant = -d.mant
	}
	d.ok = true
	return d
}

// alignDecimals scales two decimals to a common exponent; ok is false on
// overflow.
func alignDecimals(a, b decimal) (int64, int64, bool) {
	e := min(a.exp, b.exp)
	x, ok1 := scale(a.mant, a.exp-e)
	y, ok2 := scale(b.mant, b.exp-e)
	return x, y, ok1 && ok2
}

func scale(m int64, by int) (int64, bool) {
	for ; by > 0; by-- {
		if m > math.MaxInt64/10 || m < math.MinInt64/10 {
			return 0, false
		}
		m *= 10
	}
	return m, true
}
