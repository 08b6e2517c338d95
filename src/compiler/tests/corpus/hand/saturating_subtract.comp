#version 310 es
// agx16 GLSL corpus (hand-written): an unsigned difference clamped at zero, which Mesa's
// algebraic pass turns into usub_sat (found by tests/glsl_fuzz.rs), and its saturating sum.
// GLSL ES 3.00 operators inside a compute kernel; reference in tests/corpus/cases.rs.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In0 { uint a0[]; };
layout(std430, binding = 1) readonly buffer In1 { uint a1[]; };
layout(std430, binding = 2) writeonly buffer Out { uint r[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint p = a0[i];
    uint q = a1[i];
    r[i] = p < q ? 0u : p - q;
    r[i + 64u] = p + q < p ? 4294967295u : p + q;
}
