#version 310 es
// agx16 GLSL corpus (hand-written): a while loop with a data-dependent break
// GLSL ES 3.00 control flow inside a compute kernel; reference in tests/corpus/cases.rs.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In0 { uint a0[]; };
layout(std430, binding = 1) writeonly buffer Out { uint r[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint v = a0[i];
    uint n = 0u;
    while (n < 40u) {
        if (v <= 1u)
            break;
        v = (v % 2u == 0u) ? v / 2u : v + 1u;
        n++;
    }
    r[i] = n * 1000u + (v & 255u);
}
