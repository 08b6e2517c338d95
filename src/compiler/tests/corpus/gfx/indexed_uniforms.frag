#version 100
// agx16 GLSL corpus (graphics, statistics only): a default-block uniform array read at a
// loop-variable index into a local array (in reverse), then a loop whose body is an if inside a
// do-while(false) that rewrites the previous element from the current one; the local array is
// indexed by variables throughout and becomes the colour.
precision mediump float;
uniform float w[4];
void main() {
    float acc[4];
    for (int n = 0; n < 4; n++)
        acc[n] = w[3 - n] * 0.5;
    for (int n = 1; n < 4; n++) {
        bool rising = acc[n - 1] < acc[n];
        do {
            if (rising)
                acc[n - 1] = acc[n] - acc[n - 1];
        } while (false);
    }
    gl_FragColor = vec4(acc[0], acc[1], acc[2], acc[3]);
}
