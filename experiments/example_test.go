package experiments_test

import (
	"fmt"

	"github.com/packer-sched/packer/experiments"
)

func ExamplePapers() {
	for _, p := range experiments.Papers() {
		fmt.Printf("%-8s %s\n", p.Name, p.Cite())
	}
	fmt.Println(experiments.PackingPaper.Citation())
	// Output:
	// dp       Sandholm & Lai, JSSPP 2010
	// delay    Zaharia et al., EuroSys 2010
	// hybs     Nguyen et al., UCC 2012
	// tyrex    Ghiț & Epema, CCGrid 2016
	// packing  Aboulnaga et al., CloudDB 2009
	// Aboulnaga, Wang, Zhang, "Packing the Most Onto Your Cloud", CloudDB 2009
}

func ExampleSummarise() {
	// Five seeds' values: sorted 2, 3, 4, 9, 40; the median is the middle one.
	v := experiments.Summarise([]float64{4, 40, 2, 9, 3})
	fmt.Println(v.Format(5))
	// Output: 4.00 [2.00–40.0]
}

func ExampleRun() {
	rs, err := experiments.Run([]string{"hybs-exp2"}, &experiments.Settings{Seeds: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := rs[0]
	fmt.Printf("%s (%s), seeds %v\n", r.Name, r.Paper.Cite(), r.Seeds)
	for _, c := range r.Checks {
		fmt.Printf("%s: %s\n", c.Verdict(), c.Claim)
	}
	// Output:
	// hybs-exp2 (Nguyen et al., UCC 2012), seeds [1]
	// holds: hybs(1,-1,-1) has a lower mean response time than fair
}
