#version 310 es
// agx16 GLSL corpus (hand-written): median of three with min/max
// GLSL ES 3.00 control flow inside a compute kernel; reference in tests/corpus/cases.rs.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In0 { float a0[]; };
layout(std430, binding = 1) readonly buffer In1 { float a1[]; };
layout(std430, binding = 2) readonly buffer In2 { float a2[]; };
layout(std430, binding = 3) writeonly buffer Out { float r[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float p = a0[i];
    float q = a1[i];
    float s = a2[i];
    r[i] = max(min(p, q), min(max(p, q), s));
}
