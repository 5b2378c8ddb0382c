package model

// Solution is a solved planning problem as plain values: the schedule, where
// every VM of every phase goes, and what is known about how it was made. A
// solver (optimize.Solve) produces it; the plan document (plan.New) records it.
// It sits here, left of both, so that the plan package need not import the
// solvers.
type Solution struct {
	// Algorithm names the method that made the schedule ("exact", "pso",
	// "pair", "sequential").
	Algorithm string
	// Schedule is feasible (Problem.Check) and normalized (Normalize); its
	// phases are in the order they run.
	Schedule Schedule
	// Placement[i] is phase i's placement on the machines.
	Placement [][]HostPlacement
	// Notes are facts about how the schedule was made that a reader should
	// know, in plain sentences.
	Notes []string
	// Optimum is the least makespan any schedule can have, when a solver
	// proved it; LowerBound is a bound below it otherwise; nil when unknown.
	Optimum, LowerBound *float64
	// Seed, Particles and Iterations are the particle swarm's settings when a
	// swarm made the schedule: Seed is nil otherwise.
	Seed                  *uint64
	Particles, Iterations int
}
