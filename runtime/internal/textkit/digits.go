package textkit

// IsDigits reports whether s holds only the ASCII digits 0-9 (true for "").
func IsDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
