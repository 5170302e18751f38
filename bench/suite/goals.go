package main

import (
	"fmt"
)

// printGoals summarises the issue's three goals per spec.
func printGoals(res *results, specs []spec) {
	fmt.Println("## Goals per spec")
	fmt.Println()
	fmt.Println("generate ≤1.5x kin-openapi load (in process, medians); tools/list ≤0.5x the peer's bytes with 0 quality issues; spec to runnable server ≤1/3 of the peer's time (warm caches).")
	fmt.Println()
	fmt.Println("| spec | generate / kin | tools/list oa2mcp / peer | quality issues (oa2mcp / peer) | spec to server oa2mcp / peer |")
	fmt.Println("|---|---|---|---|---|")
	gen := map[string]genResult{}
	for _, g := range res.Gen {
		gen[g.Spec] = g
	}
	s2s := map[string]serverResult{}
	for _, r := range res.Servers {
		if r.Cache == "warm" {
			s2s[r.Spec] = r
		}
	}
	var met, total [3]int
	for _, s := range specs {
		g := gen[s.Display]
		c1 := "n/a"
		switch {
		case g.Err != "":
			c1 = "**no** (failed)"
			total[0]++
		case g.KinErr != "" || g.Kin == 0:
			c1 = "n/a (kin-openapi cannot load it)"
		default:
			x := float64(g.Gen) / float64(g.Kin)
			c1 = fmt.Sprintf("%.2f %s", x, yesNo(x <= 1.5))
			total[0]++
			if x <= 1.5 {
				met[0]++
			}
		}
		c2, c3 := "n/a", "n/a"
		if p := res.Lists[s.Name]; p != nil {
			total[1]++
			switch {
			case p.Ours.Err != "":
				c2 = "**no** (oa2mcp failed)"
			case p.Peer.Err != "":
				ok := p.Ours.Issues == 0
				c2 = "peer failed; " + yesNo(ok)
				if ok {
					met[1]++
				}
			case p.Peer.Tools == 0 && p.Ours.Tools == 0:
				c2 = "n/a (no operations)"
				total[1]--
			default:
				x := float64(p.Ours.Bytes) / float64(p.Peer.Bytes)
				ok := x <= 0.5 && p.Ours.Issues == 0
				c2 = fmt.Sprintf("%.2f %s", x, yesNo(ok))
				if ok {
					met[1]++
				}
			}
			pi := "failed"
			if p.Peer.Err == "" {
				pi = fmt.Sprint(p.Peer.Issues)
			}
			c3 = fmt.Sprintf("%d / %s", p.Ours.Issues, pi)
		}
		c4 := ""
		if r, ok := s2s[s.Display]; ok {
			total[2]++
			if r.Ours.Err == "" && r.Peer.Err == "" {
				x := float64(r.Ours.total()) / float64(r.Peer.total())
				c4 = fmt.Sprintf("%.2f %s", x, yesNo(x <= 1.0/3))
				if x <= 1.0/3 {
					met[2]++
				}
			} else if r.Ours.Err == "" {
				c4 = "peer failed; yes"
				met[2]++
			} else {
				c4 = "**no** (oa2mcp failed)"
			}
		}
		fmt.Printf("| `%s` | %s | %s | %s | %s |\n", s.Display, c1, c2, c3, c4)
	}
	fmt.Printf("| **met** | %d of %d | %d of %d | | %d of %d |\n", met[0], total[0], met[1], total[1], met[2], total[2])
	fmt.Println()
}
