package main

import (
	"fmt"
	"os"

	"github.com/mlperf-go/inference/check"
)

func main() {
	round := "v6.1"
	if len(os.Args) > 2 {
		round = os.Args[2]
	}
	err := check.Run(os.Args[1], check.Options{Round: round}, os.Stdout)
	if err != nil {
		fmt.Println("ERR", err)
	}
}
