//! Tabs as every layer names them.

/// Stable identity of a tab (indexes shift when tabs close; ids do not).
pub type TabId = u64;
