#version 310 es
// agx16 GLSL corpus (hand-written): a counted loop accumulating floats
// GLSL ES 3.00 control flow inside a compute kernel; reference in tests/corpus/cases.rs.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In0 { float a0[]; };
layout(std430, binding = 1) readonly buffer In1 { int a1[]; };
layout(std430, binding = 2) writeonly buffer Out { float r[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float x = a0[i];
    int n = a1[i];
    float s = 0.0;
    for (int k = 0; k < n; k++) {
        s = s * 0.5 + x;
    }
    r[i] = s;
}
