#version 100
// agx16 GLSL corpus (graphics, statistics only): a uniform array copied into a local array by
// a variable index, one bubble-sort pass over it with the swap in a do-while(false) (the shape of
// piglit's unroll-do-while-false-loop-only-once), a compare of the result.
precision mediump float;
uniform float x[4];
void main() {
    float d[4];
    for (int i = 0; i < 4; i++)
        d[i] = x[i];
    for (int i = 0; i < 3; i++) {
        bool swap = d[i] > d[i + 1];
        do {
            if (swap) {
                float t = d[i];
                d[i] = d[i + 1];
                d[i + 1] = t;
            }
        } while (false);
    }
    bool sorted = d[0] == 3.0 && d[1] == 2.0 && d[2] == 1.0 && d[3] == 4.0;
    gl_FragColor = sorted ? vec4(0.0, 1.0, 0.0, 1.0) : vec4(1.0, 0.0, 0.0, 1.0);
}
