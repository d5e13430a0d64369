// The first free tile beside the head (up, right, down, left), else up.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

func main() {
	in := bufio.NewReader(os.Stdin)
	var w, h, n, m, t int
	if _, err := fmt.Fscan(in, &w, &h, &n, &m, &t); err != nil {
		return
	}
	me := byte(64 + m)
	arrows := "^>v<"
	dx, dy := []int{0, 1, 0, -1}, []int{-1, 0, 1, 0}
	rows := make([]string, h)
	for {
		for y := 0; y < h; y++ {
			if _, err := fmt.Fscan(in, &rows[y]); err != nil {
				return
			}
		}
		hx, hy := 0, 0
		for y, row := range rows {
			if x := strings.IndexByte(row, me); x >= 0 {
				hx, hy = x, y
			}
		}
		answer := byte('^')
		for d := 0; d < 4; d++ {
			tile := rows[(hy+dy[d]+h)%h][(hx+dx[d]+w)%w]
			if tile == '.' || tile == '+' {
				answer = arrows[d]
				break
			}
		}
		fmt.Printf("%c\n", answer)
	}
}
