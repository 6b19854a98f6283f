// compat_groupcache_place.go -- groupcache's consistenthash as a Go program
// uses it, for tests/compat_clientlibs.py (built there offline, in GOPATH
// mode, against Debian's golang-github-golang-groupcache-dev): "replicas N",
// "node HEX-PEER" lines, "keys", then hex keys ("-": the empty key) on
// stdin; each key's peer (its index in the node lines) on stdout.
package main

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/golang/groupcache/consistenthash"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	replicas := 0
	var peers []string
	index := map[string]int{}
	for in.Scan() {
		f := strings.Fields(in.Text())
		if len(f) == 0 {
			continue
		}
		if f[0] == "keys" {
			break
		}
		switch f[0] {
		case "replicas":
			replicas, _ = strconv.Atoi(f[1])
		case "node":
			b, err := hex.DecodeString(f[1])
			if err != nil {
				os.Exit(2)
			}
			index[string(b)] = len(peers)
			peers = append(peers, string(b))
		}
	}
	m := consistenthash.New(replicas, nil)
	m.Add(peers...)
	for in.Scan() {
		t := in.Text()
		var key []byte
		if t != "-" {
			var err error
			if key, err = hex.DecodeString(t); err != nil {
				os.Exit(2)
			}
		}
		fmt.Fprintln(out, index[m.Get(string(key))])
	}
}
