//! Semantic identity of an instruction form: what the model `match`es on.

/// What an instruction does. Forms whose meaning is not established use `Opaque`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    // control
    Stop,
    Jump,
    /// Jump taken when no lane remains active (empty-arm / loop-exit skip).
    JumpExecNone,
    /// Indirect (computed) call.
    CallIndirect,
    /// Fence around calls and divergent control flow.
    Fence,
    Call,
    Return,
    IfPush,
    Else,
    Pop,
    LoopMaskUpdate,
    BreakUnwind,
    /// Predicate compare writing a predicate bank.
    PredCompare,
    /// Execution/memory fence or barrier.
    Barrier,
    // moves and special registers
    GetSr,
    MovImm,
    UniformMove,
    RegMove,
    /// r[n] = r[n] & 0xffff in place.
    ZeroExtend16,
    // float ALU (32-bit)
    FAdd,
    FMul,
    FFma,
    /// fmov/fabs/fneg with a modifier field.
    FUnary,
    // fp16 ALU
    HAdd,
    HMul,
    HFma,
    // conversions
    F32ToF16,
    /// Two fp32 values to unsigned-normalised integers packed into one word or half.
    PackUnorm,
    IntToFloat,
    FloatToInt,
    // integer ALU
    IAdd,
    ISub,
    IMad,
    /// Two-input boolean function selected by LUT fields.
    ILogic,
    MinMax,
    Select,
    ShiftRight,
    ShiftLeft,
    BitfieldExtract,
    BitCount,
    // special-function unit: function chosen by its op-select fields (see `sfu`)
    Sfu,
    // memory
    DeviceLoad,
    DeviceStore,
    Atomic,
    /// Word-indexed per-invocation scratch (spill) store / load.
    ScratchStore,
    ScratchLoad,
    // graphics and others whose exact semantics is not yet modelled
    Texture,
    TileRead,
    TileStore,
    VaryingStore,
    Iterate,
    SimdShuffle,
    SimdReduce,
    SimdBallot,
    Derivative,
    MatrixMac,
    RayTrace,
    // launcher (setup-program) operations
    /// Load one or two 64-bit pointers from a GPR-pair address into pending registers.
    PointerLoad,
    /// Stage allocation: threadgroup memory (compute) or tile/sample layout (fragment).
    StageAllocation,
    /// Selects the entry-table slot the stage body is entered through.
    StageTarget,
    /// Publication and scratch frame of the stage invocation.
    LaunchFrame,
    /// Copies one GPR word into the main's argument (uniform) window.
    ArgumentStore,
    /// Length and bits are known; meaning is not.
    Opaque,
}
