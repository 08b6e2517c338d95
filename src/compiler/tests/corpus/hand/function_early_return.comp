#version 310 es
// agx16 GLSL corpus (hand-written): a function with early returns
// GLSL ES 3.00 control flow inside a compute kernel; reference in tests/corpus/cases.rs.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In0 { float a0[]; };
layout(std430, binding = 1) readonly buffer In1 { float a1[]; };
layout(std430, binding = 2) writeonly buffer Out { float r[]; };
float pick(float p, float q) {
    if (p < 0.0)
        return -p;
    if (q >= 1.0)
        return p + q;
    return p;
}
void main() {
    uint i = gl_GlobalInvocationID.x;
    r[i] = pick(a0[i], a1[i]);
}
