package runtime

// looksLikeCardNumber reports whether a value is shaped like a payment
// card number: 13 to 19 digits, optionally in groups split by single
// spaces or hyphens, whose Luhn checksum holds. The checksum keeps most
// order numbers and other long identifiers visible in the log (nine in
// ten fail it), while every real card number passes.
func looksLikeCardNumber(v string) bool {
	digits := make([]byte, 0, 19)
	prevSep := true // no separator first
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
			digits = append(digits, c-'0')
			prevSep = false
		case (c == ' ' || c == '-') && !prevSep && i < len(v)-1:
			prevSep = true
		default:
			return false
		}
		if len(digits) > 19 {
			return false
		}
	}
	return len(digits) >= 13 && luhnValid(digits)
}

// luhnValid checks the Luhn (mod 10) checksum of a digit sequence.
func luhnValid(digits []byte) bool {
	sum := 0
	for i := range digits {
		d := int(digits[len(digits)-1-i])
		if i%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}
