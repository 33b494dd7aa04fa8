package example.app;

/**
 * The loop shapes javac emits, for {@code PreemptionPollsTest}: instrumented, each method must
 * compute what it computed before. The comment on each says how many back-edges javac gives it.
 * In an application's package, outside {@code io.loomgmp}, which the agent never instruments.
 */
final class LoopShapes {
    private LoopShapes() {
    }

    /** One: the {@code goto} back to the condition. */
    static int forLoop(int n) {
        int sum = 0;
        for (int i = 0; i < n; i++) {
            sum += i * i;
        }
        return sum;
    }

    /** One: the {@code goto} back to the condition. */
    static int whileLoop(int n) {
        int sum = 0;
        int i = n;
        while (i > 0) {
            sum += i;
            i -= 2;
        }
        return sum;
    }

    /** One: the conditional branch at the bottom. */
    static int doWhile(int n) {
        int hash = 0;
        int i = 0;
        do {
            hash = 31 * hash + i;
            i++;
        } while (i < n);
        return hash;
    }

    /** Two: one per loop. */
    static int nested(int n) {
        int sum = 0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < i; j++) {
                sum += i ^ j;
            }
        }
        return sum;
    }

    /** Two: a {@code continue} in a while loop jumps back to the condition too. */
    static int whileWithContinue(int n) {
        int sum = 0;
        int i = 0;
        while (i < n) {
            i++;
            if (i % 3 == 0) {
                continue;
            }
            sum += i;
        }
        return sum;
    }

    /** One, with a handler inside the loop: the poll sits in the try range. */
    static int loopAroundTry(int n) {
        int sum = 0;
        for (int i = 0; i < n; i++) {
            try {
                if (i % 4 == 3) {
                    throw new IllegalStateException();
                }
                sum += i;
            } catch (IllegalStateException e) {
                sum -= 1;
            }
        }
        return sum;
    }

    /**
     * One, and the stack maps merge {@link Square} with {@link Circle}: regenerating them needs
     * the class hierarchy of these application classes.
     */
    static String mergesApplicationTypes(int n) {
        Shape shape = new Square();
        for (int i = 0; i < n; i++) {
            shape = i % 2 == 0 ? new Square() : new Circle();
        }
        return shape.name();
    }

    /** None: forward branches only. */
    static int noLoop(int a, int b) {
        return a > b ? a - b : b - a;
    }

    abstract static class Shape {
        abstract String name();
    }

    static final class Square extends Shape {
        @Override
        String name() {
            return "square";
        }
    }

    static final class Circle extends Shape {
        @Override
        String name() {
            return "circle";
        }
    }
}
