// The threads beside a node's period thread, each named for its role and placed below the period
// when its work may wait (docs/architecture.md, "Threads").
//
// A thread inherits its creator's scheduling class: one started after a node has taken SCHED_FIFO
// would compete with the period at the period's own priority, and a file write or a client's
// request there could make a period late. Each such thread calls belowThePeriod() first.
#pragma once

namespace rfms {

// Names the calling thread as ps, top -H, perf and /proc show it (Linux keeps 15 characters).
void nameThisThread(const char* name);

// The calling thread leaves any real-time class for SCHED_OTHER at niceness `nice` (0 .. 19):
// below every period thread, whatever the node's rt_priority.
void belowThePeriod(const char* name, int nice);

}  // namespace rfms
