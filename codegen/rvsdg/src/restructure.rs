//! Placeholder: filled by the restructuring work.
