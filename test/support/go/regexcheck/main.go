// regexcheck evaluates patterns with Go's regexp package, which kube-apiserver uses for the
// `pattern` of a CustomResourceDefinition's schema. It reads
//
//	[{"pattern": "^a+$", "values": ["a", "b"]}, ...]
//
// on stdin and writes, in the same order,
//
//	[{"error": "", "matches": [true, false]}, ...]
//
// with the compile error of a pattern Go refuses (and no matches).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
)

type query struct {
	Pattern string   `json:"pattern"`
	Values  []string `json:"values"`
}

type answer struct {
	Error   string `json:"error"`
	Matches []bool `json:"matches"`
}

func main() {
	var queries []query
	if err := json.NewDecoder(os.Stdin).Decode(&queries); err != nil {
		fmt.Fprintf(os.Stderr, "regexcheck: bad input: %v\n", err)
		os.Exit(2)
	}
	answers := make([]answer, len(queries))
	for i, q := range queries {
		re, err := regexp.Compile(q.Pattern)
		if err != nil {
			answers[i] = answer{Error: err.Error(), Matches: []bool{}}
			continue
		}
		matches := make([]bool, len(q.Values))
		for j, v := range q.Values {
			matches[j] = re.MatchString(v)
		}
		answers[i] = answer{Matches: matches}
	}
	if err := json.NewEncoder(os.Stdout).Encode(answers); err != nil {
		fmt.Fprintf(os.Stderr, "regexcheck: %v\n", err)
		os.Exit(2)
	}
}
