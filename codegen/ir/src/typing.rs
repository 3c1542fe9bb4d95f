//! Result types of instructions, computed from their operands (shared by the builder,
//! the parser and the verifier).

use crate::entities::Value;
use crate::function::Function;
use crate::instructions::{InstructionData, Opcode};
use crate::types::Type;

/// The result types of an instruction, from its opcode, its operands' types (`vt`), the
/// function's references (for calls) and, for the opcodes with a type suffix
/// (`Opcode::has_type_suffix`), the controlling type `ctrl`. `None` when something needed
/// is unknown: a missing `ctrl`, an operand whose type `vt` does not know, an invalid
/// reference. This does not check operands; the verifier does.
pub fn result_types(
    func: &Function,
    data: &InstructionData,
    ctrl: Option<Type>,
    vt: &dyn Fn(Value) -> Option<Type>,
) -> Option<Vec<Type>> {
    use Opcode::*;
    let op = data.opcode();
    let args = data.arguments();
    let arg = |i: usize| args.get(i).and_then(|&v| vt(v));
    Some(match op {
        _ if op.has_type_suffix() => vec![ctrl?],
        F32const | Fdemote => vec![Type::F32],
        F64const | Fpromote => vec![Type::F64],
        SymbolAddr | TlsAddr | StackAddr | Ptradd => vec![Type::Ptr],
        Icmp | Fcmp => vec![Type::I1],
        UaddOverflow | SaddOverflow | UsubOverflow | SsubOverflow | UmulOverflow | SmulOverflow => {
            vec![arg(0)?, Type::I1]
        }
        Select => vec![arg(1)?],
        AtomicRmw => vec![arg(1)?],
        AtomicCas => vec![arg(1)?, Type::I1],
        Store | AtomicStore | Memcpy | Memmove | Memset | Fence => vec![],
        Jump | Brif | Switch | Return | Unreachable | Trap => vec![],
        Call => match data {
            InstructionData::Call { func: f, .. } => {
                func.ext_funcs.get(*f)?.signature.returns.clone()
            }
            _ => return None,
        },
        CallIndirect => match data {
            InstructionData::CallIndirect { sig, .. } => func.signatures.get(*sig)?.returns.clone(),
            _ => return None,
        },
        // Every other opcode (integer and float arithmetic, unary ops, fma) has the type
        // of its first operand.
        _ => vec![arg(0)?],
    })
}
