// mini_core: the `#![no_core]` library of the no_sysroot suite (tests/no_sysroot/README.md).
//
// In the style of rustc_codegen_cranelift's example/mini_core.rs, written for this suite:
// the lang items, traits and intrinsics the test programs need, integer and float
// helpers implemented over intrinsics, the panic machinery (a message on stderr, then
// exit status 101), and printing over two C functions that the runtime provides:
//
//   vliw_write(fd, ptr, len) -> isize   (VLIW: system call 1; host: write(2) via std)
//   vliw_exit(code) -> !                 (VLIW: system call 0; host: process::exit)
//
// The same source is compiled by rustc's LLVM backend for the host and by our backend
// for the VLIW target, so nothing here may depend on the target beyond those two
// functions, and no output may depend on unspecified behaviour (NaN bit patterns, the
// sign of the zero returned by f64::min, addresses). The one target-specific part is
// `builtins` at the end (VLIW only): the runtime functions our backend calls for
// 128-bit division and 128-bit/float conversions, which the host gets from its own
// compiler_builtins and libm.

#![feature(
    no_core,
    lang_items,
    intrinsics,
    rustc_attrs,
    decl_macro,
    auto_traits,
    unboxed_closures,
    transparent_unions,
    thread_local
)]
#![no_core]
#![allow(
    dead_code,
    internal_features,
    non_camel_case_types,
    unnecessary_transmutes,
    ambiguous_wide_pointer_comparisons
)]

// ---------------------------------------------------------------------------------------
// Marker traits
// ---------------------------------------------------------------------------------------

#[lang = "pointee_sized"]
pub trait PointeeSized {}

#[lang = "meta_sized"]
pub trait MetaSized: PointeeSized {}

#[lang = "sized"]
pub trait Sized: MetaSized {}

/// Pointer metadata: `()` for thin pointers, `usize` for slices, `DynMetadata` for
/// trait objects (the optimizers of rustc reason about pointer casts through it).
#[lang = "pointee_trait"]
pub trait Pointee: PointeeSized {
    #[lang = "metadata_type"]
    type Metadata: Copy + Sync + Unpin + Freeze;
}

#[lang = "dyn_metadata"]
pub struct DynMetadata<Dyn: PointeeSized> {
    _vtable_ptr: *const (),
    _phantom: PhantomData<Dyn>,
}

impl<Dyn: PointeeSized> Clone for DynMetadata<Dyn> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<Dyn: PointeeSized> Copy for DynMetadata<Dyn> {}

#[lang = "destruct"]
pub trait Destruct {}

#[lang = "tuple_trait"]
pub trait Tuple {}

#[lang = "unsize"]
pub trait Unsize<T: PointeeSized>: PointeeSized {}

#[lang = "coerce_unsized"]
pub trait CoerceUnsized<T> {}

impl<'a, 'b: 'a, T: PointeeSized + Unsize<U>, U: PointeeSized> CoerceUnsized<&'a U> for &'b T {}
impl<'a, T: PointeeSized + Unsize<U>, U: PointeeSized> CoerceUnsized<&'a mut U> for &'a mut T {}
impl<T: PointeeSized + Unsize<U>, U: PointeeSized> CoerceUnsized<*const U> for *const T {}
impl<T: PointeeSized + Unsize<U>, U: PointeeSized> CoerceUnsized<*mut U> for *mut T {}

#[lang = "dispatch_from_dyn"]
pub trait DispatchFromDyn<T> {}

impl<'a, T: PointeeSized + Unsize<U>, U: PointeeSized> DispatchFromDyn<&'a U> for &'a T {}
impl<'a, T: PointeeSized + Unsize<U>, U: PointeeSized> DispatchFromDyn<&'a mut U> for &'a mut T {}
impl<T: PointeeSized + Unsize<U>, U: PointeeSized> DispatchFromDyn<*const U> for *const T {}
impl<T: PointeeSized + Unsize<U>, U: PointeeSized> DispatchFromDyn<*mut U> for *mut T {}

#[lang = "legacy_receiver"]
pub trait LegacyReceiver {}

impl<T: PointeeSized> LegacyReceiver for &T {}
impl<T: PointeeSized> LegacyReceiver for &mut T {}

#[lang = "clone"]
pub trait Clone: Sized {
    #[lang = "clone_fn"]
    fn clone(&self) -> Self;
}

#[lang = "copy"]
pub trait Copy: Clone {}

#[lang = "bikeshed_guaranteed_no_drop"]
pub trait BikeshedGuaranteedNoDrop {}

#[lang = "sync"]
pub unsafe auto trait Sync {}

#[lang = "freeze"]
pub unsafe auto trait Freeze {}

#[lang = "unpin"]
pub auto trait Unpin {}

#[lang = "unsafe_unpin"]
pub unsafe auto trait UnsafeUnpin {}

#[lang = "structural_peq"]
pub trait StructuralPartialEq {}

/// Copy and Clone of the primitive types (the compiler provides them for tuples,
/// arrays, closures and function pointers once these traits exist).
macro_rules! copy_clone {
    ($($t:ty)*) => {
        $(
            impl Clone for $t {
                #[inline]
                fn clone(&self) -> Self {
                    *self
                }
            }
            impl Copy for $t {}
        )*
    };
}

copy_clone! { bool char u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64 }

impl Clone for ! {
    fn clone(&self) -> Self {
        *self
    }
}
impl Copy for ! {}

impl<T: PointeeSized> Clone for &T {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: PointeeSized> Copy for &T {}
impl<T: PointeeSized> Clone for *const T {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: PointeeSized> Copy for *const T {}
impl<T: PointeeSized> Clone for *mut T {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: PointeeSized> Copy for *mut T {}

#[lang = "phantom_data"]
pub struct PhantomData<T: PointeeSized>;

impl<T: PointeeSized> Clone for PhantomData<T> {
    fn clone(&self) -> Self {
        PhantomData
    }
}
impl<T: PointeeSized> Copy for PhantomData<T> {}

// ---------------------------------------------------------------------------------------
// Drop
// ---------------------------------------------------------------------------------------

#[lang = "drop"]
pub trait Drop {
    fn drop(&mut self);
}

#[lang = "drop_glue"]
pub unsafe fn drop_glue<T: PointeeSized>(_to_drop: &mut T) {
    // Replaced by the real drop glue by the compiler.
}

pub unsafe fn drop_in_place<T: ?Sized>(to_drop: *mut T) {
    unsafe { drop_glue(&mut *to_drop) }
}

pub fn drop<T>(_x: T) {}

pub fn forget<T>(x: T) {
    let _ = ManuallyDrop::new(x);
}

#[lang = "manually_drop"]
#[repr(transparent)]
pub struct ManuallyDrop<T: ?Sized> {
    value: T,
}

impl<T> ManuallyDrop<T> {
    pub const fn new(value: T) -> ManuallyDrop<T> {
        ManuallyDrop { value }
    }
}

#[lang = "maybe_uninit"]
#[repr(transparent)]
pub union MaybeUninit<T> {
    uninit: (),
    value: ManuallyDrop<T>,
}

// ---------------------------------------------------------------------------------------
// Operators
// ---------------------------------------------------------------------------------------

macro_rules! binop_trait {
    ($lang:literal $Trait:ident $method:ident; $alang:literal $ATrait:ident $amethod:ident) => {
        #[lang = $lang]
        pub trait $Trait<Rhs = Self> {
            type Output;
            fn $method(self, rhs: Rhs) -> Self::Output;
        }

        #[lang = $alang]
        pub trait $ATrait<Rhs = Self> {
            fn $amethod(&mut self, rhs: Rhs);
        }
    };
}

binop_trait!("add" Add add; "add_assign" AddAssign add_assign);
binop_trait!("sub" Sub sub; "sub_assign" SubAssign sub_assign);
binop_trait!("mul" Mul mul; "mul_assign" MulAssign mul_assign);
binop_trait!("div" Div div; "div_assign" DivAssign div_assign);
binop_trait!("rem" Rem rem; "rem_assign" RemAssign rem_assign);
binop_trait!("bitand" BitAnd bitand; "bitand_assign" BitAndAssign bitand_assign);
binop_trait!("bitor" BitOr bitor; "bitor_assign" BitOrAssign bitor_assign);
binop_trait!("bitxor" BitXor bitxor; "bitxor_assign" BitXorAssign bitxor_assign);
binop_trait!("shl" Shl shl; "shl_assign" ShlAssign shl_assign);
binop_trait!("shr" Shr shr; "shr_assign" ShrAssign shr_assign);

#[lang = "neg"]
pub trait Neg {
    type Output;
    fn neg(self) -> Self::Output;
}

#[lang = "not"]
pub trait Not {
    type Output;
    fn not(self) -> Self::Output;
}

/// `impl Trait for T` and `impl AssignTrait for T` with the built-in operator.
macro_rules! binop_impls {
    ($Trait:ident $method:ident $ATrait:ident $amethod:ident $op:tt; $($t:ty)*) => {
        $(
            impl $Trait for $t {
                type Output = $t;
                #[inline]
                #[track_caller]
                fn $method(self, rhs: $t) -> $t {
                    self $op rhs
                }
            }
            impl $ATrait for $t {
                #[inline]
                #[track_caller]
                fn $amethod(&mut self, rhs: $t) {
                    *self = *self $op rhs;
                }
            }
        )*
    };
}

macro_rules! arith_impls {
    ($($t:ty)*) => {
        binop_impls!(Add add AddAssign add_assign +; $($t)*);
        binop_impls!(Sub sub SubAssign sub_assign -; $($t)*);
        binop_impls!(Mul mul MulAssign mul_assign *; $($t)*);
        binop_impls!(Div div DivAssign div_assign /; $($t)*);
        binop_impls!(Rem rem RemAssign rem_assign %; $($t)*);
    };
}

macro_rules! bit_impls {
    ($($t:ty)*) => {
        binop_impls!(BitAnd bitand BitAndAssign bitand_assign &; $($t)*);
        binop_impls!(BitOr bitor BitOrAssign bitor_assign |; $($t)*);
        binop_impls!(BitXor bitxor BitXorAssign bitxor_assign ^; $($t)*);
        $(
            impl Not for $t {
                type Output = $t;
                #[inline]
                fn not(self) -> $t {
                    !self
                }
            }
        )*
    };
}

macro_rules! neg_impls {
    ($($t:ty)*) => {
        $(
            impl Neg for $t {
                type Output = $t;
                #[inline]
                #[track_caller]
                fn neg(self) -> $t {
                    -self
                }
            }
        )*
    };
}

/// Shifts by every integer type, as core has them (`x << 3u8`, `x >> n` with `n: u32`).
macro_rules! shift_impls {
    ($t:ty; $($r:ty)*) => {
        $(
            impl Shl<$r> for $t {
                type Output = $t;
                #[inline]
                #[track_caller]
                fn shl(self, rhs: $r) -> $t {
                    self << rhs
                }
            }
            impl ShlAssign<$r> for $t {
                #[inline]
                #[track_caller]
                fn shl_assign(&mut self, rhs: $r) {
                    *self = *self << rhs;
                }
            }
            impl Shr<$r> for $t {
                type Output = $t;
                #[inline]
                #[track_caller]
                fn shr(self, rhs: $r) -> $t {
                    self >> rhs
                }
            }
            impl ShrAssign<$r> for $t {
                #[inline]
                #[track_caller]
                fn shr_assign(&mut self, rhs: $r) {
                    *self = *self >> rhs;
                }
            }
        )*
    };
}

macro_rules! shift_impls_all {
    ($($t:ty)*) => {
        $( shift_impls!($t; u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize); )*
    };
}

arith_impls! { u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64 }
bit_impls! { u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize }
neg_impls! { i8 i16 i32 i64 i128 isize f32 f64 }
shift_impls_all! { u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize }

impl Not for bool {
    type Output = bool;
    #[inline]
    fn not(self) -> bool {
        !self
    }
}
binop_impls!(BitAnd bitand BitAndAssign bitand_assign &; bool);
binop_impls!(BitOr bitor BitOrAssign bitor_assign |; bool);
binop_impls!(BitXor bitxor BitXorAssign bitxor_assign ^; bool);

#[lang = "index"]
pub trait Index<Idx: ?Sized> {
    type Output: ?Sized;
    #[track_caller]
    fn index(&self, index: Idx) -> &Self::Output;
}

#[lang = "index_mut"]
pub trait IndexMut<Idx: ?Sized>: Index<Idx> {
    #[track_caller]
    fn index_mut(&mut self, index: Idx) -> &mut Self::Output;
}

#[lang = "deref"]
pub trait Deref {
    #[lang = "deref_target"]
    type Target: ?Sized;
    fn deref(&self) -> &Self::Target;
}

#[lang = "deref_mut"]
pub trait DerefMut: Deref {
    fn deref_mut(&mut self) -> &mut Self::Target;
}

impl<T: ?Sized> Deref for &T {
    type Target = T;
    fn deref(&self) -> &T {
        *self
    }
}

impl<T: ?Sized> Deref for &mut T {
    type Target = T;
    fn deref(&self) -> &T {
        &**self
    }
}

impl<T: ?Sized> DerefMut for &mut T {
    fn deref_mut(&mut self) -> &mut T {
        &mut **self
    }
}

#[lang = "fn_once"]
#[rustc_paren_sugar]
pub trait FnOnce<Args: Tuple> {
    #[lang = "fn_once_output"]
    type Output;
    extern "rust-call" fn call_once(self, args: Args) -> Self::Output;
}

#[lang = "fn_mut"]
#[rustc_paren_sugar]
pub trait FnMut<Args: Tuple>: FnOnce<Args> {
    extern "rust-call" fn call_mut(&mut self, args: Args) -> Self::Output;
}

#[lang = "fn"]
#[rustc_paren_sugar]
pub trait Fn<Args: Tuple>: FnMut<Args> {
    extern "rust-call" fn call(&self, args: Args) -> Self::Output;
}

// ---------------------------------------------------------------------------------------
// Comparison
// ---------------------------------------------------------------------------------------

#[lang = "eq"]
pub trait PartialEq<Rhs: ?Sized = Self> {
    fn eq(&self, other: &Rhs) -> bool;
    #[inline]
    fn ne(&self, other: &Rhs) -> bool {
        !self.eq(other)
    }
}

pub trait Eq: PartialEq<Self> {}

#[lang = "Ordering"]
#[repr(i8)]
pub enum Ordering {
    Less = -1,
    Equal = 0,
    Greater = 1,
}

pub use Ordering::{Equal, Greater, Less};

impl Clone for Ordering {
    fn clone(&self) -> Self {
        *self
    }
}
impl Copy for Ordering {}

impl Ordering {
    pub fn as_i8(self) -> i8 {
        self as i8
    }
}

impl PartialEq for Ordering {
    fn eq(&self, other: &Ordering) -> bool {
        (*self as i8) == (*other as i8)
    }
}

#[lang = "partial_ord"]
pub trait PartialOrd<Rhs: ?Sized = Self>: PartialEq<Rhs> {
    fn partial_cmp(&self, other: &Rhs) -> Option<Ordering>;
    fn lt(&self, other: &Rhs) -> bool {
        match self.partial_cmp(other) {
            Some(Less) => true,
            _ => false,
        }
    }
    fn le(&self, other: &Rhs) -> bool {
        match self.partial_cmp(other) {
            Some(Less) | Some(Equal) => true,
            _ => false,
        }
    }
    fn gt(&self, other: &Rhs) -> bool {
        match self.partial_cmp(other) {
            Some(Greater) => true,
            _ => false,
        }
    }
    fn ge(&self, other: &Rhs) -> bool {
        match self.partial_cmp(other) {
            Some(Greater) | Some(Equal) => true,
            _ => false,
        }
    }
}

pub trait Ord: Eq + PartialOrd<Self> {
    fn cmp(&self, other: &Self) -> Ordering;
}

macro_rules! cmp_impls {
    ($($t:ty)*) => {
        $(
            impl PartialEq for $t {
                #[inline]
                fn eq(&self, other: &$t) -> bool {
                    (*self) == (*other)
                }
                #[inline]
                fn ne(&self, other: &$t) -> bool {
                    (*self) != (*other)
                }
            }
            impl PartialOrd for $t {
                #[inline]
                fn partial_cmp(&self, other: &$t) -> Option<Ordering> {
                    if *self < *other {
                        Some(Less)
                    } else if *self > *other {
                        Some(Greater)
                    } else if *self == *other {
                        Some(Equal)
                    } else {
                        None
                    }
                }
                #[inline]
                fn lt(&self, other: &$t) -> bool {
                    (*self) < (*other)
                }
                #[inline]
                fn le(&self, other: &$t) -> bool {
                    (*self) <= (*other)
                }
                #[inline]
                fn gt(&self, other: &$t) -> bool {
                    (*self) > (*other)
                }
                #[inline]
                fn ge(&self, other: &$t) -> bool {
                    (*self) >= (*other)
                }
            }
        )*
    };
}

macro_rules! ord_impls {
    ($($t:ty)*) => {
        $(
            impl Eq for $t {}
            impl Ord for $t {
                #[inline]
                fn cmp(&self, other: &$t) -> Ordering {
                    intrinsics::three_way_compare(*self, *other)
                }
            }
        )*
    };
}

cmp_impls! { bool char u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64 }
ord_impls! { u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize }

impl Eq for bool {}
impl Ord for bool {
    fn cmp(&self, other: &bool) -> Ordering {
        (*self as u8).cmp(&(*other as u8))
    }
}
impl Eq for char {}
impl Ord for char {
    fn cmp(&self, other: &char) -> Ordering {
        (*self as u32).cmp(&(*other as u32))
    }
}

impl<T: ?Sized> PartialEq for *const T {
    fn eq(&self, other: &*const T) -> bool {
        *self == *other
    }
}
impl<T: ?Sized> PartialEq for *mut T {
    fn eq(&self, other: &*mut T) -> bool {
        *self == *other
    }
}

impl<A: ?Sized + PartialEq<B>, B: ?Sized> PartialEq<&B> for &A {
    fn eq(&self, other: &&B) -> bool {
        PartialEq::eq(*self, *other)
    }
}

impl PartialEq for () {
    fn eq(&self, _other: &()) -> bool {
        true
    }
}

impl PartialEq for str {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl<T: PartialEq> PartialEq for [T] {
    fn eq(&self, other: &[T]) -> bool {
        if self.len() != other.len() {
            return false;
        }
        let mut i = 0;
        while i < self.len() {
            if self[i] != other[i] {
                return false;
            }
            i += 1;
        }
        true
    }
}

impl<T: PartialEq, const N: usize> PartialEq for [T; N] {
    fn eq(&self, other: &[T; N]) -> bool {
        let a: &[T] = self;
        let b: &[T] = other;
        a == b
    }
}

impl<T: PartialEq> PartialEq for Option<T> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Some(a), Some(b)) => *a == *b,
            (None, None) => true,
            _ => false,
        }
    }
}

pub fn min<T: Ord>(a: T, b: T) -> T {
    match a.cmp(&b) {
        Greater => b,
        _ => a,
    }
}

pub fn max<T: Ord>(a: T, b: T) -> T {
    match a.cmp(&b) {
        Less => b,
        _ => a,
    }
}

// ---------------------------------------------------------------------------------------
// Option, ranges, iterators
// ---------------------------------------------------------------------------------------

#[lang = "Option"]
pub enum Option<T> {
    #[lang = "None"]
    None,
    #[lang = "Some"]
    Some(T),
}

pub use Option::{None, Some};

impl<T: Clone> Clone for Option<T> {
    fn clone(&self) -> Self {
        match self {
            Some(x) => Some(x.clone()),
            None => None,
        }
    }
}
impl<T: Copy> Copy for Option<T> {}

impl<T> Option<T> {
    pub fn is_some(&self) -> bool {
        match self {
            Some(_) => true,
            None => false,
        }
    }

    pub fn is_none(&self) -> bool {
        !self.is_some()
    }

    #[track_caller]
    pub fn unwrap(self) -> T {
        match self {
            Some(x) => x,
            None => panic("called `Option::unwrap()` on a `None` value"),
        }
    }

    pub fn unwrap_or(self, default: T) -> T {
        match self {
            Some(x) => x,
            None => default,
        }
    }

    pub fn map<U, F: FnOnce(T) -> U>(self, f: F) -> Option<U> {
        match self {
            Some(x) => Some(f(x)),
            None => None,
        }
    }

    pub fn as_ref(&self) -> Option<&T> {
        match self {
            Some(x) => Some(x),
            None => None,
        }
    }
}

/// The `?` operator on Option.
#[lang = "Try"]
pub trait Try: FromResidual<Self::Residual> {
    type Output;
    type Residual;
    #[lang = "from_output"]
    fn from_output(output: Self::Output) -> Self;
    #[lang = "branch"]
    fn branch(self) -> ControlFlow<Self::Residual, Self::Output>;
}

pub trait FromResidual<R> {
    #[lang = "from_residual"]
    fn from_residual(residual: R) -> Self;
}

pub enum ControlFlow<B, C = ()> {
    #[lang = "Continue"]
    Continue(C),
    #[lang = "Break"]
    Break(B),
}

pub enum Infallible {}

impl<T> Try for Option<T> {
    type Output = T;
    type Residual = Option<Infallible>;
    #[inline]
    fn from_output(output: T) -> Self {
        Some(output)
    }
    #[inline]
    fn branch(self) -> ControlFlow<Option<Infallible>, T> {
        match self {
            Some(v) => ControlFlow::Continue(v),
            None => ControlFlow::Break(None),
        }
    }
}

impl<T> FromResidual<Option<Infallible>> for Option<T> {
    #[inline]
    fn from_residual(_residual: Option<Infallible>) -> Self {
        None
    }
}

#[lang = "Range"]
pub struct Range<Idx> {
    pub start: Idx,
    pub end: Idx,
}

#[lang = "RangeInclusive"]
pub struct RangeInclusive<Idx> {
    start: Idx,
    end: Idx,
    exhausted: bool,
}

impl<Idx> RangeInclusive<Idx> {
    #[lang = "range_inclusive_new"]
    #[inline]
    pub const fn new(start: Idx, end: Idx) -> Self {
        RangeInclusive { start, end, exhausted: false }
    }
}

#[lang = "RangeFrom"]
pub struct RangeFrom<Idx> {
    pub start: Idx,
}

#[lang = "RangeTo"]
pub struct RangeTo<Idx> {
    pub end: Idx,
}

#[lang = "RangeFull"]
pub struct RangeFull;

#[lang = "iterator"]
#[must_use]
pub trait Iterator {
    type Item;

    #[lang = "next"]
    fn next(&mut self) -> Option<Self::Item>;
}

pub trait IntoIterator {
    type Item;
    type IntoIter: Iterator<Item = Self::Item>;

    #[lang = "into_iter"]
    fn into_iter(self) -> Self::IntoIter;
}

impl<I: Iterator> IntoIterator for I {
    type Item = I::Item;
    type IntoIter = I;

    #[inline]
    fn into_iter(self) -> I {
        self
    }
}

/// Integer types ranges iterate over (one generic Iterator impl per range type, as in
/// core, so that `for i in 0..n` infers the type of `i` from its uses).
pub trait Step: Copy + PartialOrd {
    fn forward(self) -> Self;
    fn backward(self) -> Self;
}

macro_rules! step_impls {
    ($($t:ty)*) => {
        $(
            impl Step for $t {
                #[inline]
                fn forward(self) -> $t {
                    self + 1
                }
                #[inline]
                fn backward(self) -> $t {
                    self - 1
                }
            }
        )*
    };
}

step_impls! { u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize }

impl<A: Step> Iterator for Range<A> {
    type Item = A;
    #[inline]
    fn next(&mut self) -> Option<A> {
        if self.start < self.end {
            let n = self.start;
            self.start = n.forward();
            Some(n)
        } else {
            None
        }
    }
}

impl<A: Step> Iterator for RangeInclusive<A> {
    type Item = A;
    #[inline]
    fn next(&mut self) -> Option<A> {
        if self.exhausted || self.start > self.end {
            return None;
        }
        let n = self.start;
        if n == self.end {
            self.exhausted = true;
        } else {
            self.start = n.forward();
        }
        Some(n)
    }
}

/// `(a..b).rev()`: counts down from `b - 1` to `a`.
pub struct RevRange<Idx> {
    start: Idx,
    end: Idx,
}

impl<A: Step> Range<A> {
    pub fn rev(self) -> RevRange<A> {
        RevRange { start: self.start, end: self.end }
    }
}

impl<A: Step> Iterator for RevRange<A> {
    type Item = A;
    #[inline]
    fn next(&mut self) -> Option<A> {
        if self.start < self.end {
            self.end = self.end.backward();
            Some(self.end)
        } else {
            None
        }
    }
}

// ---------------------------------------------------------------------------------------
// Slices, arrays, str
// ---------------------------------------------------------------------------------------

/// The parts of a slice reference (a data pointer and a length, the layout rustc uses
/// for every pointer to `[T]` and `str`).
#[repr(C)]
struct SliceParts<T> {
    data: *const T,
    len: usize,
}

#[repr(C)]
union SliceRepr<T> {
    const_ptr: *const [T],
    mut_ptr: *mut [T],
    raw: SliceParts<T>,
}

impl<T> Clone for SliceParts<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SliceParts<T> {}

pub trait SliceExt<T> {
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool;
    fn as_ptr(&self) -> *const T;
    fn as_mut_ptr(&mut self) -> *mut T;
    fn get(&self, i: usize) -> Option<&T>;
    fn iter(&self) -> Iter<'_, T>;
    fn swap(&mut self, a: usize, b: usize);
}

impl<T> SliceExt<T> for [T] {
    #[inline]
    fn len(&self) -> usize {
        unsafe { SliceRepr { const_ptr: self as *const [T] }.raw.len }
    }

    #[inline]
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    fn as_ptr(&self) -> *const T {
        self as *const [T] as *const T
    }

    #[inline]
    fn as_mut_ptr(&mut self) -> *mut T {
        self as *mut [T] as *mut T
    }

    #[inline]
    fn get(&self, i: usize) -> Option<&T> {
        if i < self.len() { Some(&self[i]) } else { None }
    }

    #[inline]
    fn iter(&self) -> Iter<'_, T> {
        Iter { slice: self, pos: 0 }
    }

    #[track_caller]
    fn swap(&mut self, a: usize, b: usize) {
        let pa: *mut T = &mut self[a];
        let pb: *mut T = &mut self[b];
        unsafe {
            let tmp = intrinsics::read_via_copy(pa);
            intrinsics::copy(pb, pa, 1);
            intrinsics::write_via_move(pb, tmp);
        }
    }
}

/// A by-reference iterator over a slice.
pub struct Iter<'a, T> {
    slice: &'a [T],
    pos: usize,
}

impl<'a, T> Iterator for Iter<'a, T> {
    type Item = &'a T;
    #[inline]
    fn next(&mut self) -> Option<&'a T> {
        if self.pos < self.slice.len() {
            let item = &self.slice[self.pos];
            self.pos += 1;
            Some(item)
        } else {
            None
        }
    }
}

/// Builds a slice from its parts.
pub unsafe fn slice_from_raw_parts<'a, T>(data: *const T, len: usize) -> &'a [T] {
    unsafe { &*SliceRepr { raw: SliceParts { data, len } }.const_ptr }
}

pub unsafe fn slice_from_raw_parts_mut<'a, T>(data: *mut T, len: usize) -> &'a mut [T] {
    unsafe { &mut *SliceRepr { raw: SliceParts { data: data as *const T, len } }.mut_ptr }
}

#[track_caller]
fn slice_range_check(start: usize, end: usize, len: usize) {
    if start > end {
        panic_range("slice index starts at ", start, " but ends at ", end);
    }
    if end > len {
        panic_range("range end index ", end, " out of range for slice of length ", len);
    }
}

impl<T> Index<Range<usize>> for [T] {
    type Output = [T];
    #[track_caller]
    fn index(&self, r: Range<usize>) -> &[T] {
        slice_range_check(r.start, r.end, self.len());
        unsafe { slice_from_raw_parts(self.as_ptr().add(r.start), r.end - r.start) }
    }
}

impl<T> IndexMut<Range<usize>> for [T] {
    #[track_caller]
    fn index_mut(&mut self, r: Range<usize>) -> &mut [T] {
        slice_range_check(r.start, r.end, self.len());
        unsafe { slice_from_raw_parts_mut(self.as_mut_ptr().add(r.start), r.end - r.start) }
    }
}

impl<T> Index<RangeFrom<usize>> for [T] {
    type Output = [T];
    #[track_caller]
    fn index(&self, r: RangeFrom<usize>) -> &[T] {
        let len = self.len();
        &self[r.start..len]
    }
}

impl<T> IndexMut<RangeFrom<usize>> for [T] {
    #[track_caller]
    fn index_mut(&mut self, r: RangeFrom<usize>) -> &mut [T] {
        let len = self.len();
        &mut self[r.start..len]
    }
}

impl<T> IndexMut<RangeTo<usize>> for [T] {
    #[track_caller]
    fn index_mut(&mut self, r: RangeTo<usize>) -> &mut [T] {
        &mut self[0..r.end]
    }
}

impl<T> Index<RangeTo<usize>> for [T] {
    type Output = [T];
    #[track_caller]
    fn index(&self, r: RangeTo<usize>) -> &[T] {
        &self[0..r.end]
    }
}

impl<T> Index<usize> for [T] {
    type Output = T;
    #[track_caller]
    fn index(&self, i: usize) -> &T {
        &self[i]
    }
}

impl<T> IndexMut<usize> for [T] {
    #[track_caller]
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self[i]
    }
}

impl<T, I, const N: usize> Index<I> for [T; N]
where
    [T]: Index<I>,
{
    type Output = <[T] as Index<I>>::Output;
    #[track_caller]
    fn index(&self, i: I) -> &Self::Output {
        let s: &[T] = self;
        Index::index(s, i)
    }
}

impl<T, I, const N: usize> IndexMut<I> for [T; N]
where
    [T]: IndexMut<I>,
{
    #[track_caller]
    fn index_mut(&mut self, i: I) -> &mut Self::Output {
        let s: &mut [T] = self;
        IndexMut::index_mut(s, i)
    }
}

pub trait StrExt {
    fn as_bytes(&self) -> &[u8];
    fn len(&self) -> usize;
}

impl StrExt for str {
    #[inline]
    fn as_bytes(&self) -> &[u8] {
        unsafe { &*(self as *const str as *const [u8]) }
    }
    #[inline]
    fn len(&self) -> usize {
        self.as_bytes().len()
    }
}

/// `&str` from bytes the caller knows to be UTF-8.
pub unsafe fn str_from_utf8_unchecked(bytes: &[u8]) -> &str {
    unsafe { &*(bytes as *const [u8] as *const str) }
}

// ---------------------------------------------------------------------------------------
// Raw pointers
// ---------------------------------------------------------------------------------------

pub trait ConstPtrExt<T> {
    unsafe fn add(self, n: usize) -> Self;
    unsafe fn offset(self, n: isize) -> Self;
    unsafe fn read(self) -> T;
    unsafe fn offset_from(self, origin: Self) -> isize;
    fn is_null(self) -> bool;
    fn addr(self) -> usize;
    fn wrapping_add(self, n: usize) -> Self;
}

impl<T> ConstPtrExt<T> for *const T {
    #[inline]
    unsafe fn add(self, n: usize) -> Self {
        unsafe { intrinsics::offset(self, n) }
    }
    #[inline]
    unsafe fn offset(self, n: isize) -> Self {
        unsafe { intrinsics::offset(self, n) }
    }
    #[inline]
    unsafe fn read(self) -> T {
        unsafe { intrinsics::read_via_copy(self) }
    }
    #[inline]
    unsafe fn offset_from(self, origin: Self) -> isize {
        unsafe { intrinsics::ptr_offset_from(self, origin) }
    }
    #[inline]
    fn is_null(self) -> bool {
        self.addr() == 0
    }
    #[inline]
    fn addr(self) -> usize {
        unsafe { intrinsics::transmute::<*const T, usize>(self) }
    }
    #[inline]
    fn wrapping_add(self, n: usize) -> Self {
        unsafe { intrinsics::arith_offset(self, n as isize) }
    }
}

pub trait MutPtrExt<T> {
    unsafe fn add(self, n: usize) -> Self;
    unsafe fn offset(self, n: isize) -> Self;
    unsafe fn read(self) -> T;
    unsafe fn write(self, value: T);
    fn is_null(self) -> bool;
}

impl<T> MutPtrExt<T> for *mut T {
    #[inline]
    unsafe fn add(self, n: usize) -> Self {
        unsafe { intrinsics::offset(self, n) }
    }
    #[inline]
    unsafe fn offset(self, n: isize) -> Self {
        unsafe { intrinsics::offset(self, n) }
    }
    #[inline]
    unsafe fn read(self) -> T {
        unsafe { intrinsics::read_via_copy(self) }
    }
    #[inline]
    unsafe fn write(self, value: T) {
        unsafe { intrinsics::write_via_move(self, value) }
    }
    #[inline]
    fn is_null(self) -> bool {
        (self as *const T).is_null()
    }
}

pub const fn null<T>() -> *const T {
    0 as *const T
}

pub const fn null_mut<T>() -> *mut T {
    0 as *mut T
}

pub unsafe fn copy_nonoverlapping<T>(src: *const T, dst: *mut T, count: usize) {
    unsafe { intrinsics::copy_nonoverlapping(src, dst, count) }
}

pub unsafe fn copy<T>(src: *const T, dst: *mut T, count: usize) {
    unsafe { intrinsics::copy(src, dst, count) }
}

pub unsafe fn write_bytes<T>(dst: *mut T, val: u8, count: usize) {
    unsafe { intrinsics::write_bytes(dst, val, count) }
}

pub use intrinsics::transmute;

pub fn swap<T>(a: &mut T, b: &mut T) {
    unsafe {
        let tmp = intrinsics::read_via_copy(a as *const T);
        intrinsics::copy_nonoverlapping(b as *const T, a as *mut T, 1);
        intrinsics::write_via_move(b as *mut T, tmp);
    }
}

pub fn replace<T>(dest: &mut T, src: T) -> T {
    unsafe {
        let old = intrinsics::read_via_copy(dest as *const T);
        intrinsics::write_via_move(dest as *mut T, src);
        old
    }
}

pub const fn size_of<T>() -> usize {
    <T as SizedTypeProperties>::SIZE
}

pub const fn align_of<T>() -> usize {
    <T as SizedTypeProperties>::ALIGN
}

/// The size_of and align_of intrinsics may only be evaluated in constants: rustc
/// reaches them through these lang-item constants.
trait SizedTypeProperties: Sized {
    #[lang = "mem_size_const"]
    const SIZE: usize = intrinsics::size_of::<Self>();
    #[lang = "mem_align_const"]
    const ALIGN: usize = intrinsics::align_of::<Self>();
}

impl<T> SizedTypeProperties for T {}

pub fn size_of_val<T: ?Sized>(x: &T) -> usize {
    unsafe { intrinsics::size_of_val(x) }
}

/// Hides a value from the optimizers (of rustc, LLVM and ours), so that tests exercise
/// the code generated for an operation instead of its constant-folded result.
#[inline]
pub fn black_box<T>(x: T) -> T {
    intrinsics::black_box(x)
}

// ---------------------------------------------------------------------------------------
// Thread-local statics another crate uses (thread_local.rs): a `#[thread_local]`
// static reached from another crate is a reference to an external TLS symbol.
// ---------------------------------------------------------------------------------------

pub mod tls {
    /// Initialized (`.tdata`).
    #[thread_local]
    pub static mut TLS_COUNTER: u64 = 1000;
    /// Zero-initialized (`.tbss`).
    #[thread_local]
    pub static mut TLS_PAIR: [u32; 2] = [0; 2];

    /// Adds `by` to this thread's `TLS_COUNTER`; the new value.
    #[inline(never)]
    pub fn bump_counter(by: u64) -> u64 {
        unsafe {
            TLS_COUNTER = TLS_COUNTER + by;
            TLS_COUNTER
        }
    }
}

// ---------------------------------------------------------------------------------------
// Integer methods (wrapping, checked, overflowing, bit counting), over intrinsics
// ---------------------------------------------------------------------------------------

pub trait Int: Copy {
    const BITS: u32;
    const MIN: Self;
    const MAX: Self;
    fn wrapping_add(self, rhs: Self) -> Self;
    fn wrapping_sub(self, rhs: Self) -> Self;
    fn wrapping_mul(self, rhs: Self) -> Self;
    fn wrapping_neg(self) -> Self;
    fn wrapping_shl(self, n: u32) -> Self;
    fn wrapping_shr(self, n: u32) -> Self;
    fn overflowing_add(self, rhs: Self) -> (Self, bool);
    fn overflowing_sub(self, rhs: Self) -> (Self, bool);
    fn overflowing_mul(self, rhs: Self) -> (Self, bool);
    fn checked_add(self, rhs: Self) -> Option<Self>;
    fn checked_sub(self, rhs: Self) -> Option<Self>;
    fn checked_mul(self, rhs: Self) -> Option<Self>;
    fn checked_div(self, rhs: Self) -> Option<Self>;
    fn checked_rem(self, rhs: Self) -> Option<Self>;
    fn saturating_add(self, rhs: Self) -> Self;
    fn saturating_sub(self, rhs: Self) -> Self;
    fn count_ones(self) -> u32;
    fn leading_zeros(self) -> u32;
    fn trailing_zeros(self) -> u32;
    fn swap_bytes(self) -> Self;
    fn reverse_bits(self) -> Self;
    fn rotate_left(self, n: u32) -> Self;
    fn rotate_right(self, n: u32) -> Self;
    fn pow(self, exp: u32) -> Self;
    fn wrapping_pow(self, exp: u32) -> Self;
}

macro_rules! int_impl {
    ($($t:ty, $u:ty, $signed:literal;)*) => {
        $(
            impl Int for $t {
                const BITS: u32 = (size_of::<$t>() * 8) as u32;
                const MIN: $t = if $signed { (1 as $t) << (Self::BITS - 1) } else { 0 };
                const MAX: $t = !Self::MIN;

                #[inline]
                fn wrapping_add(self, rhs: $t) -> $t {
                    intrinsics::wrapping_add(self, rhs)
                }
                #[inline]
                fn wrapping_sub(self, rhs: $t) -> $t {
                    intrinsics::wrapping_sub(self, rhs)
                }
                #[inline]
                fn wrapping_mul(self, rhs: $t) -> $t {
                    intrinsics::wrapping_mul(self, rhs)
                }
                #[inline]
                fn wrapping_neg(self) -> $t {
                    intrinsics::wrapping_sub(0, self)
                }
                #[inline]
                fn wrapping_shl(self, n: u32) -> $t {
                    unsafe { intrinsics::unchecked_shl(self, n & (Self::BITS - 1)) }
                }
                #[inline]
                fn wrapping_shr(self, n: u32) -> $t {
                    unsafe { intrinsics::unchecked_shr(self, n & (Self::BITS - 1)) }
                }
                #[inline]
                fn overflowing_add(self, rhs: $t) -> ($t, bool) {
                    intrinsics::add_with_overflow(self, rhs)
                }
                #[inline]
                fn overflowing_sub(self, rhs: $t) -> ($t, bool) {
                    intrinsics::sub_with_overflow(self, rhs)
                }
                #[inline]
                fn overflowing_mul(self, rhs: $t) -> ($t, bool) {
                    intrinsics::mul_with_overflow(self, rhs)
                }
                #[inline]
                fn checked_add(self, rhs: $t) -> Option<$t> {
                    let (r, o) = self.overflowing_add(rhs);
                    if o { None } else { Some(r) }
                }
                #[inline]
                fn checked_sub(self, rhs: $t) -> Option<$t> {
                    let (r, o) = self.overflowing_sub(rhs);
                    if o { None } else { Some(r) }
                }
                #[inline]
                fn checked_mul(self, rhs: $t) -> Option<$t> {
                    let (r, o) = self.overflowing_mul(rhs);
                    if o { None } else { Some(r) }
                }
                #[inline]
                fn checked_div(self, rhs: $t) -> Option<$t> {
                    if rhs == 0 || ($signed && self == Self::MIN && rhs == (0 as $t).wrapping_sub(1)) {
                        None
                    } else {
                        Some(unsafe { intrinsics::unchecked_div(self, rhs) })
                    }
                }
                #[inline]
                fn checked_rem(self, rhs: $t) -> Option<$t> {
                    if rhs == 0 || ($signed && self == Self::MIN && rhs == (0 as $t).wrapping_sub(1)) {
                        None
                    } else {
                        Some(unsafe { intrinsics::unchecked_rem(self, rhs) })
                    }
                }
                #[inline]
                fn saturating_add(self, rhs: $t) -> $t {
                    intrinsics::saturating_add(self, rhs)
                }
                #[inline]
                fn saturating_sub(self, rhs: $t) -> $t {
                    intrinsics::saturating_sub(self, rhs)
                }
                #[inline]
                fn count_ones(self) -> u32 {
                    intrinsics::ctpop(self)
                }
                #[inline]
                fn leading_zeros(self) -> u32 {
                    intrinsics::ctlz(self)
                }
                #[inline]
                fn trailing_zeros(self) -> u32 {
                    intrinsics::cttz(self)
                }
                #[inline]
                fn swap_bytes(self) -> $t {
                    intrinsics::bswap(self)
                }
                #[inline]
                fn reverse_bits(self) -> $t {
                    intrinsics::bitreverse(self)
                }
                #[inline]
                fn rotate_left(self, n: u32) -> $t {
                    // Through the unsigned type, so that the right shift is logical.
                    let x = self as $u;
                    let n = n & (Self::BITS - 1);
                    if n == 0 {
                        return self;
                    }
                    ((x << n) | (x >> (Self::BITS - n))) as $t
                }
                #[inline]
                fn rotate_right(self, n: u32) -> $t {
                    self.rotate_left(Self::BITS - (n & (Self::BITS - 1)))
                }
                #[track_caller]
                fn pow(self, exp: u32) -> $t {
                    let mut acc: $t = 1;
                    let mut i = 0;
                    while i < exp {
                        acc = acc * self;
                        i += 1;
                    }
                    acc
                }
                fn wrapping_pow(self, mut exp: u32) -> $t {
                    // Square and multiply.
                    let mut base = self;
                    let mut acc: $t = 1;
                    while exp > 0 {
                        if exp & 1 == 1 {
                            acc = acc.wrapping_mul(base);
                        }
                        base = base.wrapping_mul(base);
                        exp >>= 1;
                    }
                    acc
                }
            }
        )*
    };
}

int_impl! {
    u8, u8, false;
    u16, u16, false;
    u32, u32, false;
    u64, u64, false;
    u128, u128, false;
    usize, usize, false;
    i8, u8, true;
    i16, u16, true;
    i32, u32, true;
    i64, u64, true;
    i128, u128, true;
    isize, usize, true;
}

pub trait SignedInt: Int {
    fn abs(self) -> Self;
    fn signum(self) -> Self;
    fn is_negative(self) -> bool;
}

macro_rules! signed_impl {
    ($($t:ty)*) => {
        $(
            impl SignedInt for $t {
                #[track_caller]
                fn abs(self) -> $t {
                    if self < 0 { -self } else { self }
                }
                fn signum(self) -> $t {
                    if self < 0 { -1 } else if self == 0 { 0 } else { 1 }
                }
                fn is_negative(self) -> bool {
                    self < 0
                }
            }
        )*
    };
}

signed_impl! { i8 i16 i32 i64 i128 isize }

// ---------------------------------------------------------------------------------------
// Floats
// ---------------------------------------------------------------------------------------

pub trait Float: Copy {
    type Bits;
    fn to_bits(self) -> Self::Bits;
    fn from_bits(bits: Self::Bits) -> Self;
    fn is_nan(self) -> bool;
    fn is_infinite(self) -> bool;
    fn is_sign_negative(self) -> bool;
    fn abs(self) -> Self;
    fn sqrt(self) -> Self;
    fn mul_add(self, a: Self, b: Self) -> Self;
    fn floor(self) -> Self;
    fn ceil(self) -> Self;
    fn trunc(self) -> Self;
    fn round(self) -> Self;
    fn min(self, other: Self) -> Self;
    fn max(self, other: Self) -> Self;
    fn copysign(self, sign: Self) -> Self;
}

macro_rules! float_impl {
    ($($t:ty, $bits:ty, $min:ident, $max:ident, $copysign:ident;)*) => {
        $(
            impl Float for $t {
                type Bits = $bits;
                #[inline]
                fn to_bits(self) -> $bits {
                    unsafe { intrinsics::transmute::<$t, $bits>(self) }
                }
                #[inline]
                fn from_bits(bits: $bits) -> $t {
                    unsafe { intrinsics::transmute::<$bits, $t>(bits) }
                }
                #[inline]
                fn is_nan(self) -> bool {
                    self != self
                }
                #[inline]
                fn is_infinite(self) -> bool {
                    self == 1.0 / 0.0 || self == -1.0 / 0.0
                }
                #[inline]
                fn is_sign_negative(self) -> bool {
                    (self.to_bits() >> (size_of::<$t>() * 8 - 1)) != 0
                }
                #[inline]
                fn abs(self) -> $t {
                    intrinsics::fabs(self)
                }
                #[inline]
                fn sqrt(self) -> $t {
                    intrinsics::sqrt(self)
                }
                #[inline]
                fn mul_add(self, a: $t, b: $t) -> $t {
                    intrinsics::fma(self, a, b)
                }
                #[inline]
                fn floor(self) -> $t {
                    intrinsics::floor(self)
                }
                #[inline]
                fn ceil(self) -> $t {
                    intrinsics::ceil(self)
                }
                #[inline]
                fn trunc(self) -> $t {
                    intrinsics::trunc(self)
                }
                #[inline]
                fn round(self) -> $t {
                    intrinsics::round(self)
                }
                #[inline]
                fn min(self, other: $t) -> $t {
                    intrinsics::$min(self, other)
                }
                #[inline]
                fn max(self, other: $t) -> $t {
                    intrinsics::$max(self, other)
                }
                #[inline]
                fn copysign(self, sign: $t) -> $t {
                    intrinsics::$copysign(self, sign)
                }
            }
        )*
    };
}

float_impl! {
    f32, u32, minimum_number_nsz_f32, maximum_number_nsz_f32, copysignf32;
    f64, u64, minimum_number_nsz_f64, maximum_number_nsz_f64, copysignf64;
}

// ---------------------------------------------------------------------------------------
// Intrinsics
// ---------------------------------------------------------------------------------------

pub mod intrinsics {
    use crate::{Location, Ordering};

    #[rustc_intrinsic]
    pub fn abort_immediate() -> !;
    #[rustc_intrinsic]
    pub const fn size_of<T>() -> usize;
    #[rustc_intrinsic]
    pub const fn align_of<T>() -> usize;
    #[rustc_intrinsic]
    pub unsafe fn size_of_val<T: ?crate::Sized>(ptr: *const T) -> usize;
    #[rustc_intrinsic]
    pub const fn caller_location() -> &'static Location<'static>;
    #[rustc_intrinsic]
    pub unsafe fn transmute<Src, Dst>(src: Src) -> Dst;
    #[rustc_intrinsic]
    pub unsafe fn copy<T>(src: *const T, dst: *mut T, count: usize);
    #[rustc_intrinsic]
    pub unsafe fn copy_nonoverlapping<T>(src: *const T, dst: *mut T, count: usize);
    #[rustc_intrinsic]
    pub unsafe fn write_bytes<T>(dst: *mut T, val: u8, count: usize);
    #[rustc_intrinsic]
    pub unsafe fn read_via_copy<T>(ptr: *const T) -> T;
    #[rustc_intrinsic]
    pub unsafe fn write_via_move<T>(ptr: *mut T, value: T);
    #[rustc_intrinsic]
    pub unsafe fn volatile_load<T>(src: *const T) -> T;
    #[rustc_intrinsic]
    pub unsafe fn volatile_store<T>(dst: *mut T, val: T);
    #[rustc_intrinsic]
    pub unsafe fn offset<Ptr, Delta>(dst: Ptr, offset: Delta) -> Ptr;
    #[rustc_intrinsic]
    pub unsafe fn arith_offset<T>(dst: *const T, offset: isize) -> *const T;
    #[rustc_intrinsic]
    pub unsafe fn ptr_offset_from<T>(ptr: *const T, base: *const T) -> isize;
    #[rustc_intrinsic]
    pub fn black_box<T>(dummy: T) -> T;
    #[rustc_intrinsic]
    pub unsafe fn unreachable() -> !;
    #[rustc_intrinsic]
    pub fn three_way_compare<T>(lhs: T, rhs: T) -> Ordering;

    #[rustc_intrinsic]
    pub fn add_with_overflow<T>(x: T, y: T) -> (T, bool);
    #[rustc_intrinsic]
    pub fn sub_with_overflow<T>(x: T, y: T) -> (T, bool);
    #[rustc_intrinsic]
    pub fn mul_with_overflow<T>(x: T, y: T) -> (T, bool);
    #[rustc_intrinsic]
    pub fn wrapping_add<T>(a: T, b: T) -> T;
    #[rustc_intrinsic]
    pub fn wrapping_sub<T>(a: T, b: T) -> T;
    #[rustc_intrinsic]
    pub fn wrapping_mul<T>(a: T, b: T) -> T;
    #[rustc_intrinsic]
    pub fn saturating_add<T>(a: T, b: T) -> T;
    #[rustc_intrinsic]
    pub fn saturating_sub<T>(a: T, b: T) -> T;
    #[rustc_intrinsic]
    pub unsafe fn unchecked_div<T>(x: T, y: T) -> T;
    #[rustc_intrinsic]
    pub unsafe fn unchecked_rem<T>(x: T, y: T) -> T;
    #[rustc_intrinsic]
    pub unsafe fn unchecked_shl<T, U>(x: T, y: U) -> T;
    #[rustc_intrinsic]
    pub unsafe fn unchecked_shr<T, U>(x: T, y: U) -> T;
    #[rustc_intrinsic]
    pub fn ctpop<T>(x: T) -> u32;
    #[rustc_intrinsic]
    pub fn ctlz<T>(x: T) -> u32;
    #[rustc_intrinsic]
    pub fn cttz<T>(x: T) -> u32;
    #[rustc_intrinsic]
    pub fn bswap<T>(x: T) -> T;
    #[rustc_intrinsic]
    pub fn bitreverse<T>(x: T) -> T;

    #[rustc_intrinsic]
    pub fn sqrt<T>(x: T) -> T;
    #[rustc_intrinsic]
    pub fn fma<T>(a: T, b: T, c: T) -> T;
    #[rustc_intrinsic]
    pub fn fabs<T>(x: T) -> T;
    #[rustc_intrinsic]
    pub fn floor<T>(x: T) -> T;
    #[rustc_intrinsic]
    pub fn ceil<T>(x: T) -> T;
    #[rustc_intrinsic]
    pub fn trunc<T>(x: T) -> T;
    #[rustc_intrinsic]
    pub fn round<T>(x: T) -> T;
    #[rustc_intrinsic]
    pub fn minimum_number_nsz_f32(x: f32, y: f32) -> f32;
    #[rustc_intrinsic]
    pub fn maximum_number_nsz_f32(x: f32, y: f32) -> f32;
    #[rustc_intrinsic]
    pub fn minimum_number_nsz_f64(x: f64, y: f64) -> f64;
    #[rustc_intrinsic]
    pub fn maximum_number_nsz_f64(x: f64, y: f64) -> f64;
    #[rustc_intrinsic]
    pub fn copysignf32(x: f32, y: f32) -> f32;
    #[rustc_intrinsic]
    pub fn copysignf64(x: f64, y: f64) -> f64;
}

// ---------------------------------------------------------------------------------------
// Panics: `panicked at FILE:LINE:COL:` and the message on stderr, as std prints them
// (without the thread name), then exit status 101, the status of a panicking std
// program. No unwinding: the suite builds with -Cpanic=abort.
// ---------------------------------------------------------------------------------------

#[lang = "panic_location"]
pub struct Location<'a> {
    file: &'a str,
    line: u32,
    col: u32,
}

impl<'a> Location<'a> {
    #[track_caller]
    pub fn caller() -> &'static Location<'static> {
        intrinsics::caller_location()
    }
    pub fn file(&self) -> &'a str {
        self.file
    }
    pub fn line(&self) -> u32 {
        self.line
    }
    pub fn column(&self) -> u32 {
        self.col
    }
}

/// Prints `panicked at FILE:LINE:COL:` and the message parts, then exits with 101.
fn panic_with(loc: &Location<'_>, parts: &[&str], numbers: &[u64]) -> ! {
    write_str(STDERR, "panicked at ");
    write_str(STDERR, loc.file);
    write_str(STDERR, ":");
    write_u64(STDERR, loc.line as u64);
    write_str(STDERR, ":");
    write_u64(STDERR, loc.col as u64);
    write_str(STDERR, ":\n");
    let mut i = 0;
    while i < parts.len() {
        write_str(STDERR, parts[i]);
        if i < numbers.len() {
            write_u64(STDERR, numbers[i]);
        }
        i += 1;
    }
    write_str(STDERR, "\n");
    exit(101)
}

#[lang = "panic"]
#[track_caller]
pub fn panic(msg: &'static str) -> ! {
    panic_with(Location::caller(), &[msg], &[])
}

/// A panic with a message that is not 'static.
#[track_caller]
pub fn panic_str(msg: &str) -> ! {
    panic_with(Location::caller(), &[msg], &[])
}

#[track_caller]
fn panic_range(a: &str, x: usize, b: &str, y: usize) -> ! {
    panic_with(Location::caller(), &[a, b], &[x as u64, y as u64])
}

#[lang = "panic_nounwind"]
#[track_caller]
pub fn panic_nounwind(msg: &'static str) -> ! {
    panic_with(Location::caller(), &[msg], &[])
}

#[lang = "panic_bounds_check"]
#[track_caller]
fn panic_bounds_check(index: usize, len: usize) -> ! {
    panic_with(
        Location::caller(),
        &["index out of bounds: the len is ", " but the index is "],
        &[len as u64, index as u64],
    )
}

#[lang = "panic_misaligned_pointer_dereference"]
#[track_caller]
fn panic_misaligned_pointer_dereference(required: usize, found: usize) -> ! {
    // The address itself differs between machines: print only the alignment.
    let _ = found;
    panic_with(
        Location::caller(),
        &["misaligned pointer dereference: address must be a multiple of "],
        &[required as u64],
    )
}

#[lang = "panic_null_pointer_dereference"]
#[track_caller]
fn panic_null_pointer_dereference() -> ! {
    panic_with(Location::caller(), &["null pointer dereference occurred"], &[])
}

#[lang = "panic_null_reference_constructed"]
#[track_caller]
fn panic_null_reference_constructed() -> ! {
    panic_with(Location::caller(), &["null reference constructed"], &[])
}

#[lang = "panic_invalid_enum_construction"]
#[track_caller]
fn panic_invalid_enum_construction(source: u128) -> ! {
    let _ = source;
    panic_with(Location::caller(), &["trying to construct an enum from an invalid value"], &[])
}

#[lang = "panic_cannot_unwind"]
fn panic_cannot_unwind() -> ! {
    panic_nounwind("panic in a function that cannot unwind")
}

#[lang = "panic_in_cleanup"]
fn panic_in_cleanup() -> ! {
    panic_nounwind("panic in a destructor during cleanup")
}

macro_rules! panic_const {
    ($($lang:ident = $message:expr,)+) => {
        pub mod panic_const {
            $(
                #[lang = crate::stringify!($lang)]
                #[track_caller]
                pub fn $lang() -> ! {
                    super::panic($message)
                }
            )+
        }
    };
}

panic_const! {
    panic_const_add_overflow = "attempt to add with overflow",
    panic_const_sub_overflow = "attempt to subtract with overflow",
    panic_const_mul_overflow = "attempt to multiply with overflow",
    panic_const_div_overflow = "attempt to divide with overflow",
    panic_const_rem_overflow = "attempt to calculate the remainder with overflow",
    panic_const_neg_overflow = "attempt to negate with overflow",
    panic_const_shr_overflow = "attempt to shift right with overflow",
    panic_const_shl_overflow = "attempt to shift left with overflow",
    panic_const_div_by_zero = "attempt to divide by zero",
    panic_const_rem_by_zero = "attempt to calculate the remainder with a divisor of zero",
}

/// `assert!(cond)` and `assert!(cond, "message")`: panics with the condition's text.
#[macro_export]
macro_rules! assert {
    ($cond:expr $(,)?) => {
        if !$cond {
            $crate::panic($crate::concat!("assertion failed: ", $crate::stringify!($cond)))
        }
    };
    ($cond:expr, $msg:literal $(,)?) => {
        if !$cond {
            $crate::panic($msg)
        }
    };
}

/// `assert_eq!(left, right)` for values that implement `PartialEq` and `Print`: prints
/// both sides on a mismatch.
#[macro_export]
macro_rules! assert_eq {
    ($left:expr, $right:expr $(,)?) => {
        match (&$left, &$right) {
            (l, r) => {
                if !(*l == *r) {
                    $crate::assert_eq_failed(l, r)
                }
            }
        }
    };
}

#[track_caller]
pub fn assert_eq_failed<A: Print + ?Sized, B: Print + ?Sized>(left: &A, right: &B) -> ! {
    let loc = Location::caller();
    write_str(STDERR, "panicked at ");
    write_str(STDERR, loc.file);
    write_str(STDERR, ":");
    write_u64(STDERR, loc.line as u64);
    write_str(STDERR, ":");
    write_u64(STDERR, loc.col as u64);
    write_str(STDERR, ":\nassertion `left == right` failed\n  left: ");
    left.print_to(STDERR);
    write_str(STDERR, "\n right: ");
    right.print_to(STDERR);
    write_str(STDERR, "\n");
    exit(101)
}

#[rustc_builtin_macro]
#[rustc_macro_transparency = "semiopaque"]
pub macro stringify($($t:tt)*) {
    /* compiler built-in */
}

#[rustc_builtin_macro]
#[rustc_macro_transparency = "semiopaque"]
pub macro concat($($t:tt)*) {
    /* compiler built-in */
}

#[rustc_builtin_macro]
#[rustc_macro_transparency = "semiopaque"]
pub macro file() {
    /* compiler built-in */
}

#[rustc_builtin_macro]
#[rustc_macro_transparency = "semiopaque"]
pub macro line() {
    /* compiler built-in */
}

#[rustc_builtin_macro]
#[rustc_macro_transparency = "semiopaque"]
pub macro column() {
    /* compiler built-in */
}

// ---------------------------------------------------------------------------------------
// Output: the runtime's two functions, and printing of every primitive type
// ---------------------------------------------------------------------------------------

unsafe extern "C" {
    /// Writes `len` bytes at `ptr` to file descriptor `fd` (1 stdout, 2 stderr);
    /// returns the count written or a negative errno.
    pub fn vliw_write(fd: i32, ptr: *const u8, len: usize) -> isize;
    /// Ends the program with exit status `code & 0xff`.
    pub fn vliw_exit(code: i32) -> !;
}

pub const STDOUT: i32 = 1;
pub const STDERR: i32 = 2;

pub fn exit(code: i32) -> ! {
    unsafe { vliw_exit(code) }
}

pub fn write_bytes_to(fd: i32, bytes: &[u8]) {
    let mut done = 0;
    while done < bytes.len() {
        let n = unsafe { vliw_write(fd, bytes.as_ptr().add(done), bytes.len() - done) };
        if n <= 0 {
            // Nowhere to report it; stop rather than spin.
            return;
        }
        done += n as usize;
    }
}

pub fn write_str(fd: i32, s: &str) {
    write_bytes_to(fd, s.as_bytes())
}

/// Decimal digits of `n` at the end of `buf`; returns the index of the first digit.
fn format_u64(mut n: u64, buf: &mut [u8; 20]) -> usize {
    let mut i = 20;
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return i;
        }
    }
}

pub fn write_u64(fd: i32, n: u64) {
    let mut buf = [0u8; 20];
    let start = format_u64(n, &mut buf);
    write_bytes_to(fd, &buf[start..]);
}

pub fn write_i64(fd: i32, n: i64) {
    if n < 0 {
        write_str(fd, "-");
        // Through the unsigned type: also right for i64::MIN.
        write_u64(fd, (n as u64).wrapping_neg());
    } else {
        write_u64(fd, n as u64);
    }
}

/// `n / d` and `n % d` for a small divisor, by long division over 32-bit limbs with
/// 64-bit arithmetic only: printing a u128 does not depend on 128-bit division (which
/// the tests check separately).
fn divmod_u128_small(n: u128, d: u32) -> (u128, u32) {
    let d = d as u64;
    let mut q: u128 = 0;
    let mut rem: u64 = 0;
    let mut limb = 4;
    while limb > 0 {
        limb -= 1;
        let shift = limb * 32;
        let cur = (rem << 32) | ((n >> shift) as u32 as u64);
        q |= ((cur / d) as u128) << shift;
        rem = cur % d;
    }
    (q, rem as u32)
}

pub fn write_u128(fd: i32, n: u128) {
    if n <= u64::MAX as u128 {
        return write_u64(fd, n as u64);
    }
    // Base 10^9 chunks, least significant first; a u128 has at most 39 digits.
    let mut chunks = [0u32; 5];
    let mut count = 0;
    let mut rest = n;
    while rest != 0 {
        let (q, r) = divmod_u128_small(rest, 1_000_000_000);
        chunks[count] = r;
        count += 1;
        rest = q;
    }
    count -= 1;
    write_u64(fd, chunks[count] as u64);
    while count > 0 {
        count -= 1;
        let mut buf = [0u8; 20];
        let start = format_u64(chunks[count] as u64, &mut buf);
        let mut pad = 9 - (20 - start);
        while pad > 0 {
            write_str(fd, "0");
            pad -= 1;
        }
        write_bytes_to(fd, &buf[start..]);
    }
}

pub fn write_i128(fd: i32, n: i128) {
    if n < 0 {
        write_str(fd, "-");
        write_u128(fd, (n as u128).wrapping_neg());
    } else {
        write_u128(fd, n as u128);
    }
}

/// `0x` and the hexadecimal digits of `n`, `digits` of them at least (leading zeros).
pub fn write_hex(fd: i32, n: u128, digits: u32) {
    let mut buf = [0u8; 34];
    buf[0] = b'0';
    buf[1] = b'x';
    let mut len = 0;
    let mut rest = n;
    while rest != 0 || len < digits as usize {
        rest >>= 4;
        len += 1;
        if len == 32 {
            break;
        }
    }
    if len == 0 {
        len = 1;
    }
    let mut i = 0;
    while i < len {
        let nibble = ((n >> (4 * (len - 1 - i))) & 0xf) as u8;
        buf[2 + i] = if nibble < 10 { b'0' + nibble } else { b'a' + nibble - 10 };
        i += 1;
    }
    write_bytes_to(fd, &buf[..2 + len]);
}

/// An f64 written exactly, independently of the host's float formatting: `NaN` (sign
/// and payload are not specified by Rust, so not printed), `inf`, `-inf`, or the C99
/// hexadecimal form `[-]0x1.HHHp[+-]E` (`0x0p+0` for zero, `0x0.HHHp-1022` subnormal).
pub fn write_f64(fd: i32, x: f64) {
    if x.is_nan() {
        return write_str(fd, "NaN");
    }
    let bits = x.to_bits();
    if bits >> 63 != 0 {
        write_str(fd, "-");
    }
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1u64 << 52) - 1);
    write_hex_float(fd, exp, frac, 52, 1023, 0x7ff);
}

/// An f32, in the form of `write_f64`.
pub fn write_f32(fd: i32, x: f32) {
    if x.is_nan() {
        return write_str(fd, "NaN");
    }
    let bits = x.to_bits();
    if bits >> 31 != 0 {
        write_str(fd, "-");
    }
    let exp = ((bits >> 23) & 0xff) as i64;
    // Shifted left by one so that the fraction is a whole number of hex digits (24 bits).
    let frac = ((bits & ((1u32 << 23) - 1)) as u64) << 1;
    write_hex_float(fd, exp, frac, 24, 127, 0xff);
}

fn write_hex_float(fd: i32, exp: i64, frac: u64, frac_bits: u32, bias: i64, max_exp: i64) {
    if exp == max_exp {
        return write_str(fd, "inf");
    }
    if exp == 0 && frac == 0 {
        return write_str(fd, "0x0p+0");
    }
    let (lead, e) = if exp == 0 { ("0x0", 1 - bias) } else { ("0x1", exp - bias) };
    write_str(fd, lead);
    if frac != 0 {
        write_str(fd, ".");
        let mut digits = frac_bits / 4;
        let mut f = frac;
        while f & 0xf == 0 {
            f >>= 4;
            digits -= 1;
        }
        let mut buf = [0u8; 16];
        let mut i = 0;
        while i < digits {
            let nibble = ((f >> (4 * (digits - 1 - i))) & 0xf) as u8;
            buf[i as usize] = if nibble < 10 { b'0' + nibble } else { b'a' + nibble - 10 };
            i += 1;
        }
        write_bytes_to(fd, &buf[..digits as usize]);
    }
    write_str(fd, "p");
    if e >= 0 {
        write_str(fd, "+");
    }
    write_i64(fd, e);
}

/// Values the `out!` and `outln!` macros can print.
pub trait Print {
    fn print_to(&self, fd: i32);
}

macro_rules! print_unsigned {
    ($($t:ty)*) => {
        $(
            impl Print for $t {
                fn print_to(&self, fd: i32) {
                    write_u64(fd, *self as u64)
                }
            }
        )*
    };
}

macro_rules! print_signed {
    ($($t:ty)*) => {
        $(
            impl Print for $t {
                fn print_to(&self, fd: i32) {
                    write_i64(fd, *self as i64)
                }
            }
        )*
    };
}

print_unsigned! { u8 u16 u32 u64 usize }
print_signed! { i8 i16 i32 i64 isize }

impl Print for u128 {
    fn print_to(&self, fd: i32) {
        write_u128(fd, *self)
    }
}

impl Print for i128 {
    fn print_to(&self, fd: i32) {
        write_i128(fd, *self)
    }
}

impl Print for f64 {
    fn print_to(&self, fd: i32) {
        write_f64(fd, *self)
    }
}

impl Print for f32 {
    fn print_to(&self, fd: i32) {
        write_f32(fd, *self)
    }
}

impl Print for bool {
    fn print_to(&self, fd: i32) {
        write_str(fd, if *self { "true" } else { "false" })
    }
}

impl Print for str {
    fn print_to(&self, fd: i32) {
        write_str(fd, self)
    }
}

impl Print for char {
    fn print_to(&self, fd: i32) {
        // UTF-8 encoding.
        let c = *self as u32;
        let mut buf = [0u8; 4];
        let len = if c < 0x80 {
            buf[0] = c as u8;
            1
        } else if c < 0x800 {
            buf[0] = 0xc0 | (c >> 6) as u8;
            buf[1] = 0x80 | (c & 0x3f) as u8;
            2
        } else if c < 0x10000 {
            buf[0] = 0xe0 | (c >> 12) as u8;
            buf[1] = 0x80 | ((c >> 6) & 0x3f) as u8;
            buf[2] = 0x80 | (c & 0x3f) as u8;
            3
        } else {
            buf[0] = 0xf0 | (c >> 18) as u8;
            buf[1] = 0x80 | ((c >> 12) & 0x3f) as u8;
            buf[2] = 0x80 | ((c >> 6) & 0x3f) as u8;
            buf[3] = 0x80 | (c & 0x3f) as u8;
            4
        };
        write_bytes_to(fd, &buf[..len]);
    }
}

impl Print for Ordering {
    fn print_to(&self, fd: i32) {
        write_str(
            fd,
            match *self {
                Less => "Less",
                Equal => "Equal",
                Greater => "Greater",
            },
        )
    }
}

impl<T: Print + ?Sized> Print for &T {
    fn print_to(&self, fd: i32) {
        (**self).print_to(fd)
    }
}

impl<T: Print + ?Sized> Print for &mut T {
    fn print_to(&self, fd: i32) {
        (**self).print_to(fd)
    }
}

impl<T: Print> Print for Option<T> {
    fn print_to(&self, fd: i32) {
        match self {
            Some(x) => {
                write_str(fd, "Some(");
                x.print_to(fd);
                write_str(fd, ")");
            }
            None => write_str(fd, "None"),
        }
    }
}

impl<T: Print> Print for [T] {
    fn print_to(&self, fd: i32) {
        write_str(fd, "[");
        let mut i = 0;
        while i < self.len() {
            if i > 0 {
                write_str(fd, ", ");
            }
            self[i].print_to(fd);
            i += 1;
        }
        write_str(fd, "]");
    }
}

impl<T: Print, const N: usize> Print for [T; N] {
    fn print_to(&self, fd: i32) {
        let s: &[T] = self;
        s.print_to(fd)
    }
}

impl<A: Print, B: Print> Print for (A, B) {
    fn print_to(&self, fd: i32) {
        write_str(fd, "(");
        self.0.print_to(fd);
        write_str(fd, ", ");
        self.1.print_to(fd);
        write_str(fd, ")");
    }
}

/// Hexadecimal: `Hex(x)` prints `0x` and the digits (no leading zeros).
pub struct Hex<T>(pub T);

macro_rules! print_hex_impl {
    ($($t:ty, $u:ty;)*) => {
        $(
            impl Print for Hex<$t> {
                fn print_to(&self, fd: i32) {
                    write_hex(fd, self.0 as $u as u128, 1)
                }
            }
        )*
    };
}

print_hex_impl! {
    u8, u8; u16, u16; u32, u32; u64, u64; u128, u128; usize, usize;
    i8, u8; i16, u16; i32, u32; i64, u64; i128, u128; isize, usize;
}

/// Prints each argument to stdout, in order, with no separator.
#[macro_export]
macro_rules! out {
    ($($e:expr),* $(,)?) => {{
        $( $crate::Print::print_to(&$e, $crate::STDOUT); )*
    }};
}

/// `out!` and a newline.
#[macro_export]
macro_rules! outln {
    ($($e:expr),* $(,)?) => {{
        $( $crate::Print::print_to(&$e, $crate::STDOUT); )*
        $crate::write_str($crate::STDOUT, "\n");
    }};
}

/// Like `outln!`, to stderr.
#[macro_export]
macro_rules! errln {
    ($($e:expr),* $(,)?) => {{
        $( $crate::Print::print_to(&$e, $crate::STDERR); )*
        $crate::write_str($crate::STDERR, "\n");
    }};
}

// The helpers named in the suite's README, for programs that prefer plain calls.

pub fn print_str(s: &str) {
    write_str(STDOUT, s)
}

pub fn print_u64(n: u64) {
    write_u64(STDOUT, n)
}

pub fn print_i64(n: i64) {
    write_i64(STDOUT, n)
}

pub fn print_u128(n: u128) {
    write_u128(STDOUT, n)
}

pub fn print_i128(n: i128) {
    write_i128(STDOUT, n)
}

/// `0x` and 16 hexadecimal digits.
pub fn print_hex(n: u64) {
    write_hex(STDOUT, n as u128, 16)
}

pub fn print_f64(x: f64) {
    write_f64(STDOUT, x)
}

pub fn print_f32(x: f32) {
    write_f32(STDOUT, x)
}

/// The bit pattern of a float that is not NaN, as `print_hex` prints it (NaN: `NaN`).
pub fn print_f64_bits(x: f64) {
    if x.is_nan() {
        print_str("NaN")
    } else {
        print_hex(x.to_bits())
    }
}

// ---------------------------------------------------------------------------------------
// Runtime functions for the VLIW side: what compiler_builtins and libm provide elsewhere
// ---------------------------------------------------------------------------------------

/// The functions that our backend's lowering calls instead of inlining an operation
/// (`codegen/machine/src/lower/wide.rs` and `float.rs`, with LLVM's names and C
/// signatures): 128-bit division and remainder, conversions between 128-bit integers and
/// floats, float remainder. A `#![no_core]` program has no compiler_builtins or libm, so
/// mini_core defines them for the VLIW target; the host build gets them from its own
/// runtime libraries and must not see duplicates.
///
/// Nothing in here may use an operation that lowers to one of these calls (`/` or `%`
/// on 128-bit integers, `as` between 128-bit integers and floats, `%` on floats): it
/// would call itself. They use shifts, compares, additions and subtractions on 128-bit
/// values (inlined by the backend) and 64-bit division (one instruction).
///
/// The callers check what Rust defines before calling (division by zero, `MIN / -1`).
/// Called anyway, division by zero gives what the machine's `divu`/`remu` give
/// (quotient all ones, remainder the dividend) and `MIN / -1` wraps to `MIN`.
///
/// When written, the module's text was checked in a std program on the host against
/// compiler_builtins and libm (edge cases and millions of random inputs, overflow
/// checks on); the suite checks it on the simulator against the host build through
/// `int128_div.rs`, `float_int128.rs` and `float_rem.rs`.
#[cfg(target_arch = "vliw64")]
pub mod builtins {
    use crate::{Float, Int, None, Option, Some};

    // --- 128-bit division -------------------------------------------------------------

    /// `(n / d, n % d)`, unsigned.
    fn udivmod(n: u128, d: u128) -> (u128, u128) {
        if d == 0 {
            return (u128::MAX, n);
        }
        if d > n {
            return (0, n);
        }
        if n >> 64 == 0 {
            // Then d <= n fits in 64 bits as well: one hardware division.
            let (n, d) = (n as u64, d as u64);
            return ((n / d) as u128, (n % d) as u128);
        }
        // Restoring binary long division: the divisor shifted left so that its top bit
        // lines up with the dividend's, then one quotient bit per position, from that
        // position down to 0. Before each compare the partial remainder is below twice
        // the shifted divisor, so one subtraction decides the bit.
        let mut k = d.leading_zeros() - n.leading_zeros();
        let mut d = d << k;
        let mut r = n;
        let mut q: u128 = 0;
        loop {
            q <<= 1;
            if r >= d {
                r -= d;
                q |= 1;
            }
            if k == 0 {
                return (q, r);
            }
            d >>= 1;
            k -= 1;
        }
    }

    /// `|x|` as an unsigned value (`i128::MIN` gives 2^127).
    fn unsigned_abs(x: i128) -> u128 {
        if x < 0 { (x as u128).wrapping_neg() } else { x as u128 }
    }

    #[unsafe(no_mangle)]
    pub extern "C" fn __udivti3(n: u128, d: u128) -> u128 {
        udivmod(n, d).0
    }

    #[unsafe(no_mangle)]
    pub extern "C" fn __umodti3(n: u128, d: u128) -> u128 {
        udivmod(n, d).1
    }

    /// Rounds toward zero: the quotient of the magnitudes, negated when the signs differ.
    /// `i128::MIN / -1` wraps to `i128::MIN`.
    #[unsafe(no_mangle)]
    pub extern "C" fn __divti3(a: i128, b: i128) -> i128 {
        let q = udivmod(unsigned_abs(a), unsigned_abs(b)).0 as i128;
        if (a < 0) != (b < 0) { q.wrapping_neg() } else { q }
    }

    /// The remainder has the dividend's sign.
    #[unsafe(no_mangle)]
    pub extern "C" fn __modti3(a: i128, b: i128) -> i128 {
        let r = udivmod(unsigned_abs(a), unsigned_abs(b)).1 as i128;
        if a < 0 { r.wrapping_neg() } else { r }
    }

    // --- 128-bit integers to floats ---------------------------------------------------

    /// The bits of `n` rounded to nearest, ties to even, in a binary format with
    /// `frac_bits` fraction bits and exponent bias `bias` (f64: 52, 1023; f32: 23, 127).
    /// An f32 overflows to infinity (exponent all ones, fraction 0) when rounding
    /// carries out of the top; no u128 reaches an f64's overflow.
    fn u128_to_float_bits(n: u128, frac_bits: u32, bias: u32) -> u64 {
        if n == 0 {
            return 0;
        }
        let lz = n.leading_zeros();
        let norm = n << lz; // the top bit at 127
        let sig_bits = frac_bits + 1; // with the implicit one
        let mut m = (norm >> (128 - sig_bits)) as u64;
        // The bits that do not fit, left-aligned: above one half rounds up, exactly one
        // half rounds to the even significand.
        let rest = norm << sig_bits;
        let half: u128 = 1 << 127;
        if rest > half || (rest == half && m & 1 == 1) {
            m += 1;
        }
        // The value is in [2^(127 - lz), 2^(128 - lz)). `m` carries the implicit one at
        // bit `frac_bits`, which the addition adds to the exponent field: so the field
        // is written one lower. A carry out of the significand (m == 2^sig_bits) moves
        // on into the exponent, which is right too (the fraction becomes 0).
        let biased = (bias + 127 - lz) as u64;
        ((biased - 1) << frac_bits) + m
    }

    #[unsafe(no_mangle)]
    pub extern "C" fn __floatuntidf(n: u128) -> f64 {
        f64::from_bits(u128_to_float_bits(n, 52, 1023))
    }

    #[unsafe(no_mangle)]
    pub extern "C" fn __floatuntisf(n: u128) -> f32 {
        f32::from_bits(u128_to_float_bits(n, 23, 127) as u32)
    }

    /// Through the magnitude: rounding to nearest even is symmetric.
    #[unsafe(no_mangle)]
    pub extern "C" fn __floattidf(n: i128) -> f64 {
        let sign = if n < 0 { 1u64 << 63 } else { 0 };
        f64::from_bits(u128_to_float_bits(unsigned_abs(n), 52, 1023) | sign)
    }

    #[unsafe(no_mangle)]
    pub extern "C" fn __floattisf(n: i128) -> f32 {
        let sign = if n < 0 { 1u32 << 31 } else { 0 };
        f32::from_bits(u128_to_float_bits(unsigned_abs(n), 23, 127) as u32 | sign)
    }

    // --- floats to 128-bit integers ---------------------------------------------------
    //
    // Rust's `as` semantics, which the lowering asks for (saturating conversions):
    // truncation toward zero, NaN to 0, out-of-range values (infinities included) to
    // the nearest bound.

    /// The magnitude of a float that is not NaN, truncated to an integer; `None` when it
    /// is 2^limit or more (infinity included). The float is given by its biased
    /// exponent `be` and fraction `frac` (`frac_bits` wide, exponent bias `bias`).
    fn truncate(be: u32, frac: u64, frac_bits: u32, bias: u32, limit: u32) -> Option<u128> {
        if be < bias {
            return Some(0); // below 1, zero and subnormals included
        }
        let e = be - bias; // the magnitude is in [2^e, 2^(e + 1))
        if e >= limit {
            // An infinity too: its exponent field (f64: 2047 - 1023, f32: 255 - 127)
            // is at least 128.
            return None;
        }
        let sig = (frac | (1u64 << frac_bits)) as u128;
        Some(if e >= frac_bits { sig << (e - frac_bits) } else { sig >> (frac_bits - e) })
    }

    /// Sign, biased exponent, fraction, and whether it is a NaN, of an f64.
    fn fields64(x: f64) -> (bool, u32, u64, bool) {
        let b = x.to_bits();
        let be = ((b >> 52) & 0x7ff) as u32;
        let frac = b & ((1u64 << 52) - 1);
        (b >> 63 != 0, be, frac, be == 0x7ff && frac != 0)
    }

    fn fields32(x: f32) -> (bool, u32, u64, bool) {
        let b = x.to_bits();
        let be = (b >> 23) & 0xff;
        let frac = (b & ((1u32 << 23) - 1)) as u64;
        (b >> 31 != 0, be, frac, be == 0xff && frac != 0)
    }

    fn to_unsigned(f: (bool, u32, u64, bool), frac_bits: u32, bias: u32) -> u128 {
        let (negative, be, frac, nan) = f;
        if nan || negative {
            // A negative value truncates to 0 (above -1) or saturates to 0.
            return 0;
        }
        match truncate(be, frac, frac_bits, bias, 128) {
            Some(m) => m,
            None => u128::MAX,
        }
    }

    fn to_signed(f: (bool, u32, u64, bool), frac_bits: u32, bias: u32) -> i128 {
        let (negative, be, frac, nan) = f;
        if nan {
            return 0;
        }
        // -2^127 itself is i128::MIN, which saturation gives.
        match truncate(be, frac, frac_bits, bias, 127) {
            Some(m) => {
                if negative { (m as i128).wrapping_neg() } else { m as i128 }
            }
            None => {
                if negative { i128::MIN } else { i128::MAX }
            }
        }
    }

    #[unsafe(no_mangle)]
    pub extern "C" fn __fixunsdfti(x: f64) -> u128 {
        to_unsigned(fields64(x), 52, 1023)
    }

    #[unsafe(no_mangle)]
    pub extern "C" fn __fixunssfti(x: f32) -> u128 {
        to_unsigned(fields32(x), 23, 127)
    }

    #[unsafe(no_mangle)]
    pub extern "C" fn __fixdfti(x: f64) -> i128 {
        to_signed(fields64(x), 52, 1023)
    }

    #[unsafe(no_mangle)]
    pub extern "C" fn __fixsfti(x: f32) -> i128 {
        to_signed(fields32(x), 23, 127)
    }

    // --- float remainder --------------------------------------------------------------

    /// `x % y` (C's fmod: `x - trunc(x / y) * y`, which is always representable, so
    /// exact) on the bits of two floats of a binary format with `frac_bits` fraction
    /// bits and `exp_bits` exponent bits (f64: 52, 11; f32: 23, 8); `None` for NaN.
    ///
    /// On the significands as integers: with |x| = mx * 2^ex and |y| = my * 2^ey, both
    /// significands normalized (the top bit at `frac_bits`) and ex >= ey, the remainder
    /// is (mx * 2^(ex - ey) mod my) * 2^ey, computed one bit of the shift at a time.
    fn fmod_bits(x: u64, y: u64, frac_bits: u32, exp_bits: u32) -> Option<u64> {
        let sign = 1u64 << (frac_bits + exp_bits);
        let (ax, ay) = (x & (sign - 1), y & (sign - 1));
        let inf = ((1u64 << exp_bits) - 1) << frac_bits;
        if ax >= inf || ay > inf || ay == 0 {
            return None; // x infinite or NaN, y NaN, y zero
        }
        if ax < ay {
            return Some(x); // y infinite, x zero included
        }
        let bias = (1i32 << (exp_bits - 1)) - 1;
        let (mx, ex) = significand(ax, frac_bits, bias);
        let (my, ey) = significand(ay, frac_bits, bias);
        // |x| >= |y| with normalized significands gives ex >= ey, and r < 2 * my before
        // each compare.
        let mut r = mx;
        let mut k = ex - ey;
        loop {
            if r >= my {
                r -= my;
            }
            if k == 0 {
                break;
            }
            r <<= 1;
            k -= 1;
        }
        let sx = x & sign;
        if r == 0 {
            return Some(sx); // a zero with the sign of x
        }
        // Normalize r * 2^ey (r < my), then encode. The result is a multiple of the
        // smallest subnormal (x and y are), so a subnormal result loses no bits.
        let s = r.leading_zeros() - (63 - frac_bits);
        let r = r << s;
        let be = ey - s as i32 + frac_bits as i32 + bias; // the biased exponent
        if be >= 1 {
            Some(sx | ((((be - 1) as u64) << frac_bits) + r))
        } else {
            Some(sx | (r >> (1 - be) as u32))
        }
    }

    /// `(m, e)` with a nonzero finite magnitude (sign cleared) = m * 2^e and the top bit
    /// of m at `frac_bits`.
    fn significand(a: u64, frac_bits: u32, bias: i32) -> (u64, i32) {
        let be = (a >> frac_bits) as i32;
        let frac = a & ((1u64 << frac_bits) - 1);
        if be == 0 {
            // Subnormal: frac * 2^(1 - bias - frac_bits), shifted up to normal form.
            let s = frac.leading_zeros() - (63 - frac_bits);
            (frac << s, 1 - bias - frac_bits as i32 - s as i32)
        } else {
            (frac | (1u64 << frac_bits), be - bias - frac_bits as i32)
        }
    }

    #[unsafe(no_mangle)]
    pub extern "C" fn fmod(x: f64, y: f64) -> f64 {
        match fmod_bits(x.to_bits(), y.to_bits(), 52, 11) {
            Some(b) => f64::from_bits(b),
            None => f64::from_bits(0x7ff8_0000_0000_0000),
        }
    }

    #[unsafe(no_mangle)]
    pub extern "C" fn fmodf(x: f32, y: f32) -> f32 {
        match fmod_bits(x.to_bits() as u64, y.to_bits() as u64, 23, 8) {
            Some(b) => f32::from_bits(b as u32),
            None => f32::from_bits(0x7fc0_0000),
        }
    }
}
