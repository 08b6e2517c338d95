//! Scheduling: a list scheduler over SSA blocks with a latency model, then scoreboard slots.

pub mod latency;
pub mod list;
pub mod scoreboard;
