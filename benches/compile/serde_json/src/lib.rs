//! `./y.sh bench compile` times building serde_json and its dependencies; this crate
//! makes cargo build them, with one derive so that serde_derive is used.
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq)]
pub struct Record {
    pub name: String,
    pub values: Vec<f64>,
    pub tags: Option<Vec<String>>,
}

pub fn round_trip(record: &Record) -> serde_json::Result<Record> {
    serde_json::from_str(&serde_json::to_string(record)?)
}
