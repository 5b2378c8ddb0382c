// Package optimize decides which jobs run together in which phase, on how many
// VMs and in which role, and where every VM goes; it writes the result as a
// plan document.
//
// The pipeline:
//
//	Problem (jobs + cluster)
//	  → a solver returns a Schedule:
//	      Sequential          every job alone on all N VMs (the baseline)
//	      PairSchedule        seed 003's pair scheduler, exact pairing up to MaxExactPairJobs
//	      Exact               the optimum of seed 003's phase model, up to MaxExactJobs
//	      Swarm               particle swarm (package pso) over the same model, any size
//	  → OrderForCompletion    phases ordered for the least mean job completion
//	  → Problem.Check         every constraint of seed 003, section 5.2
//	  → Place, per phase      hosts, disks, roles (end of section 5.2)
//	  → Plan, a JSON document read by apply, simulate and users' scripts;
//	    LowerBound judges plans the exact solver cannot prove, WriteLP hands
//	    the model to a MILP solver.
//
// Everything here is pure: no clocks, files or randomness without a seed.
package optimize
