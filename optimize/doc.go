// Package optimize decides which jobs run together in which phase, on how many
// VMs and in which role, and where every VM goes. The model is the phase model
// of Aboulnaga et al., "Packing the Most Onto Your Cloud" (CloudDB 2009), "the
// packing paper" below; the problem and schedule types live in package model,
// the plan document that records a solution in package plan.
//
// The pipeline:
//
//	model.Problem (jobs + cluster)
//	  → a solver returns a model.Schedule:
//	      model.Sequential    every job alone on all N VMs (the baseline)
//	      PairSchedule        the packing paper's pair scheduler, exact pairing up to MaxExactPairJobs
//	      Exact               the optimum of the packing paper's phase model, up to MaxExactJobs
//	      Swarm               particle swarm (package pso) over the same model, any size
//	      Columns             column generation: a plan and a proven lower bound, any size
//	  → OrderForCompletion    phases ordered for the least mean job completion
//	  → Problem.Check         every constraint of the packing paper, section 5.2
//	  → Place, per phase      hosts, disks, roles (end of section 5.2)
//	  → model.Solution, which plan.New turns into the plan document;
//	    LowerBound judges schedules the exact solver cannot prove, WriteLP
//	    hands the model to a MILP solver.
//
// Solve is the one driver: it picks the solver by Method, applies the size
// limits (CheckSize), orders and places the schedule.
//
// Everything here is pure: no files, processes or randomness without a seed,
// and no clock except Settings.TimeLimit, read by Solve alone.
package optimize
