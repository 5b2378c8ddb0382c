// Package experiments regenerates the headline comparisons of the papers
// packer builds on, in the simulator (and, for the packing paper, the
// planners), from random seeds:
//
//	Papers()  the registry of papers: short name, authors, title, venue
//	All()     the registry of experiments, each an Experiment value
//	  workload generator (this package: Tyrex, HybSExp1, DPQueues, ...)
//	    → policies (policies.go) → sim.Run        one table per seed (Run)
//	    → Summarise cell by cell over the seeds    median [min–max]
//	    → Check on the medians                     the paper's directions
//	Run(names, settings) / Evaluate(e, seeds)  the harness
//
// An experiment's Run is deterministic in its seed, so a report names its
// seeds and can be regenerated; seeds run in parallel without changing the
// result. A Check holds or does not hold by measurement alone; the tests
// record which ones hold on their reduced runs.
//
// The papers: the DP paper (Sandholm & Lai, JSSPP 2010), the delay
// scheduling paper (Zaharia et al., EuroSys 2010), the HybS paper (Nguyen et
// al., UCC 2012), the Tyrex paper (Ghiț & Epema, CCGrid 2016) and the packing
// paper (Aboulnaga et al., CloudDB 2009).
package experiments
