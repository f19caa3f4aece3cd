//! Which of a type's methods a call means, as Java picks it (JLS 15.12.2): those of the right
//! name and arity applicable by widening alone, else with boxing and unboxing, else as varargs;
//! then the most specific of them. Arguments are typed by their runtime types, as a debugger
//! knows them, not by declared ones.

use crate::adapters::java::heap::{Heap, HeapError, JavaValue, MethodInfo};

use super::hierarchy::{OBJECT, supertype_names};
use super::primitives::Primitive;

/// What an argument is, for applicability.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgumentType {
    Primitive(Primitive),
    Null,
    /// An object: its runtime type's name and every type it is an instance of.
    Reference {
        name: String,
        supertypes: Vec<String>,
    },
}

impl ArgumentType {
    pub async fn of<H: Heap>(heap: &H, value: &JavaValue) -> Result<ArgumentType, HeapError> {
        if let Some(primitive) = Primitive::of(value) {
            return Ok(ArgumentType::Primitive(primitive));
        }
        let JavaValue::Object(object) = value else {
            return Ok(ArgumentType::Null);
        };
        let ty = heap.type_of(*object).await?;
        Ok(ArgumentType::Reference {
            supertypes: supertype_names(heap, &ty).await?,
            name: ty.name,
        })
    }

    pub fn name(&self) -> &str {
        match self {
            ArgumentType::Primitive(p) => p.name(),
            ArgumentType::Null => "null",
            ArgumentType::Reference { name, .. } => name,
        }
    }

    /// Identity, widening primitive or widening reference conversion to `parameter`.
    fn converts_strictly(&self, parameter: &str) -> bool {
        match self {
            ArgumentType::Primitive(p) => {
                Primitive::from_name(parameter).is_some_and(|to| p.widens_to(to))
            }
            ArgumentType::Null => Primitive::from_name(parameter).is_none(),
            ArgumentType::Reference { supertypes, .. } => supertypes.iter().any(|s| s == parameter),
        }
    }

    /// As [`Self::converts_strictly`], or by boxing then widening, or unboxing then widening.
    fn converts_loosely(&self, parameter: &str) -> bool {
        if self.converts_strictly(parameter) {
            return true;
        }
        match self {
            ArgumentType::Primitive(p) => {
                p.box_name() == parameter || p.box_supertypes().contains(&parameter)
            }
            ArgumentType::Reference { name, .. } => Primitive::from_box(name)
                .zip(Primitive::from_name(parameter))
                .is_some_and(|(held, to)| held.widens_to(to)),
            ArgumentType::Null => false,
        }
    }
}

/// How a call's arguments met the chosen method's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Strict,
    Loose,
    /// The trailing arguments are packed into the last parameter's array.
    Varargs,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Resolution {
    Found(MethodInfo, Phase),
    NotFound,
    /// Several apply and none is more specific than the others.
    Ambiguous(Vec<MethodInfo>),
}

/// The method among `candidates` (all of the called name) that `arguments` select.
pub async fn resolve<H: Heap>(
    heap: &H,
    candidates: &[MethodInfo],
    arguments: &[ArgumentType],
) -> Result<Resolution, HeapError> {
    for phase in [Phase::Strict, Phase::Loose, Phase::Varargs] {
        let applicable: Vec<&MethodInfo> = candidates
            .iter()
            .filter(|m| applies(m, arguments, phase))
            .collect();
        if applicable.is_empty() {
            continue;
        }
        let arity = arguments.len();
        let mut best: Vec<&MethodInfo> = Vec::new();
        for &method in &applicable {
            let mut most = true;
            for &other in &applicable {
                if !std::ptr::eq(method, other)
                    && !more_specific(heap, method, other, phase, arity).await?
                {
                    most = false;
                    break;
                }
            }
            if most {
                best.push(method);
            }
        }
        return Ok(match best.as_slice() {
            [one] => Resolution::Found((*one).clone(), phase),
            _ => Resolution::Ambiguous(applicable.into_iter().cloned().collect()),
        });
    }
    Ok(Resolution::NotFound)
}

fn applies(method: &MethodInfo, arguments: &[ArgumentType], phase: Phase) -> bool {
    match phase {
        Phase::Strict | Phase::Loose => {
            method.parameters.len() == arguments.len()
                && arguments
                    .iter()
                    .zip(&method.parameters)
                    .all(|(a, p)| match phase {
                        Phase::Strict => a.converts_strictly(p),
                        _ => a.converts_loosely(p),
                    })
        }
        Phase::Varargs => {
            let Some((last, fixed)) = method.parameters.split_last() else {
                return false;
            };
            let Some(component) = last.strip_suffix("[]") else {
                return false;
            };
            method.is_varargs
                && arguments.len() >= fixed.len()
                && arguments
                    .iter()
                    .zip(fixed)
                    .all(|(a, p)| a.converts_loosely(p))
                && arguments[fixed.len()..]
                    .iter()
                    .all(|a| a.converts_loosely(component))
        }
    }
}

/// A method's parameter types as `arity` arguments meet them: the varargs component repeated.
fn parameters_for(method: &MethodInfo, phase: Phase, arity: usize) -> Vec<&str> {
    let mut parameters: Vec<&str> = method.parameters.iter().map(String::as_str).collect();
    if phase == Phase::Varargs
        && let Some(last) = parameters.pop()
    {
        let component = last.strip_suffix("[]").unwrap_or(last);
        while parameters.len() < arity.max(method.parameters.len() - 1) {
            parameters.push(component);
        }
    }
    parameters
}

/// Whether `method` is at least as specific as `other`: each of its parameters converts to
/// the other's (`int` to `long`, `String` to `Object`).
async fn more_specific<H: Heap>(
    heap: &H,
    method: &MethodInfo,
    other: &MethodInfo,
    phase: Phase,
    arity: usize,
) -> Result<bool, HeapError> {
    let mine = parameters_for(method, phase, arity);
    let theirs = parameters_for(other, phase, arity);
    for (m, t) in mine.iter().zip(&theirs) {
        if !is_subtype(heap, m, t).await? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether the type named `sub` converts to the one named `sup` without boxing.
async fn is_subtype<H: Heap>(heap: &H, sub: &str, sup: &str) -> Result<bool, HeapError> {
    if sub == sup {
        return Ok(true);
    }
    match (Primitive::from_name(sub), Primitive::from_name(sup)) {
        (Some(sub), Some(sup)) => return Ok(sub.widens_to(sup)),
        (None, None) => {}
        _ => return Ok(false),
    }
    if sup == OBJECT {
        return Ok(true);
    }
    let Some(ty) = heap.find_type(sub).await? else {
        return Ok(false);
    };
    Ok(supertype_names(heap, &ty).await?.iter().any(|n| n == sup))
}
